// JSON answers (every route's `json()` and error body) as srvx's FastResponse, which h3 and srvx
// write as usual, and which also keep what they were made of, so that a lean route's answer is
// written straight to Node's ServerResponse: no web Response or Headers built and converted back.
import type { ServerResponse } from 'node:http';
import { FastResponse } from 'srvx';

export class JsonResponse extends FastResponse {
  /** Set once `headers` was handed out: a web Headers, which may have been changed since, so srvx writes the answer. */
  headersHandedOut = false;

  constructor(
    readonly bodyText: string,
    readonly statusCode: number,
    readonly headerFields: Readonly<Record<string, string>>,
  ) {
    super(bodyText, { status: statusCode, headers: headerFields });
  }
}

// `headers` is an accessor of FastResponse's (a data property to TypeScript's lib, hence not an
// override in the class): handing it out notes that the fields may no longer be the headers.
const fastHeaders = Object.getOwnPropertyDescriptor(FastResponse.prototype, 'headers')?.get;
if (!fastHeaders) throw new Error("srvx's FastResponse has no headers accessor");
Object.defineProperty(JsonResponse.prototype, 'headers', {
  configurable: true,
  get(this: JsonResponse): Headers {
    this.headersHandedOut = true;
    return fastHeaders.call(this) as Headers;
  },
});

/**
 * Writes `answer` on `res` byte for byte as srvx's sendNodeResponse does for a FastResponse of a
 * string (an empty reason phrase, the header names lower-cased in their order, then the
 * content-length), without waiting for it to be flushed.
 */
export function writeJsonAnswer(res: ServerResponse, answer: JsonResponse): void {
  const raw: string[] = [];
  const fields = answer.headerFields;
  for (const name in fields) raw.push(name.toLowerCase(), fields[name]);
  raw.push('content-length', String(Buffer.byteLength(answer.bodyText)));
  if (!res.headersSent) res.writeHead(answer.statusCode, '', raw);
  res.end(answer.bodyText);
}
