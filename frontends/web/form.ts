// The body of a web form, read with a cap before anything else looks at it: a declared
// Content-Length past the cap is refused unread, and a body without one (chunked) is refused as
// soon as the bytes that arrived pass it, so no sender, signed in or not, makes the service buffer
// more than the cap. Forms are URL-encoded (every form of the web app) or multipart.
import type { H3Event } from 'h3';
import { DEFAULT_BODY_TIMEOUT_MS, readBody } from '../../src/http/body.js';
import { ApiError } from '../../src/http/errors.js';

/** The form's fields, or why it was refused (413 too large, 408 too slow, 415 not a form, 499 gone). */
export type FormResult = { fields: FormData } | { refused: ApiError };

export async function readForm(event: H3Event, limit: number, timeoutMs = DEFAULT_BODY_TIMEOUT_MS): Promise<FormResult> {
  const type = event.req.headers.get('content-type') ?? '';
  const essence = type.split(';')[0].trim().toLowerCase();
  let body: Buffer;
  try {
    // Compressed form bodies are inflated under the same cap (readBody checks both sizes).
    body = await readBody(event, { limit, timeoutMs });
  } catch (error) {
    if (error instanceof ApiError) return { refused: error };
    return { refused: new ApiError(499, 'client_closed_request', 'the client closed the connection before the form arrived') };
  }
  if (essence === 'application/x-www-form-urlencoded' || essence === '') {
    const fields = new FormData();
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) fields.append(name, value);
    return { fields };
  }
  if (essence === 'multipart/form-data') {
    try {
      return { fields: await new Response(body, { headers: { 'content-type': type } }).formData() };
    } catch {
      return { refused: new ApiError(400, 'bad_request', 'the multipart form could not be read') };
    }
  }
  return { refused: new ApiError(415, 'unsupported_media_type', `content type ${essence} is not a form; send application/x-www-form-urlencoded`) };
}

/**
 * A refused form's answer closes the connection: what is left of its body is still on its way
 * (Node would otherwise read it all to keep the connection open).
 */
export const FORM_REFUSAL_HEADERS: Readonly<Record<string, string>> = { connection: 'close' };
