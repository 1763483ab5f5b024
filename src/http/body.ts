// Request bodies: size-capped while they stream in, gzip/deflate inflated with a cap on the
// inflated size, and parsed as JSON with a clear 4xx for anything wrong.
import { promisify } from 'node:util';
import { gunzip, inflate, inflateRaw } from 'node:zlib';
import type { H3Event } from 'h3';
import { errors } from './errors.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);

export function requireJsonContentType(event: H3Event): void {
  const type = event.req.headers.get('content-type');
  if (type === null) return; // a body without a type is read as JSON
  const essence = type.split(';')[0].trim().toLowerCase();
  if (essence !== 'application/json' && !essence.endsWith('+json'))
    throw errors.unsupportedMediaType(`content type ${essence} is not supported; send application/json`);
}

/** The body, decompressed, at most `limit` bytes before and after inflation. */
export async function readBody(event: H3Event, limit: number): Promise<Buffer> {
  const encoding = (event.req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (!['identity', 'gzip', 'x-gzip', 'deflate', ''].includes(encoding))
    throw errors.unsupportedMediaType(`content encoding ${encoding} is not supported; use gzip, deflate or none`);
  const declared = Number(event.req.headers.get('content-length') ?? NaN);
  if (declared > limit) throw errors.tooLarge(limit);
  const raw = await readCapped(event, limit);
  if (encoding === 'identity' || encoding === '') return raw;
  try {
    if (encoding === 'deflate') {
      // HTTP's deflate is zlib-wrapped, but some clients send raw deflate: accept both.
      return await inflateAsync(raw, { maxOutputLength: limit }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ERR_BUFFER_TOO_LARGE') throw error;
        return inflateRawAsync(raw, { maxOutputLength: limit });
      });
    }
    return await gunzipAsync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw errors.tooLarge(limit);
    throw errors.invalidJson(`the body is not valid ${encoding} data`);
  }
}

export async function readJson(event: H3Event, limit: number, parse: (text: string) => unknown = JSON.parse): Promise<unknown> {
  requireJsonContentType(event);
  const body = await readBody(event, limit);
  if (body.length === 0) throw errors.invalidJson('the body is empty; send a JSON document');
  try {
    return parse(body.toString('utf8'));
  } catch (error) {
    throw errors.invalidJson(`the body is not valid JSON: ${(error as Error).message}`);
  }
}

async function readCapped(event: H3Event, limit: number): Promise<Buffer> {
  const source: AsyncIterable<Uint8Array> | null = event.runtime?.node?.req ?? event.req.body;
  if (!source) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > limit) throw errors.tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
