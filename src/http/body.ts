// Request bodies: size-capped while they stream in, within a time limit, gzip/deflate inflated
// with a cap on the inflated size, and parsed as JSON with a clear 4xx for anything wrong. A
// client that goes away mid-body is told apart from a failure (ClientAbortError).
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { H3Event } from 'h3';
import { errors } from './errors.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const inflateRawAsync = promisify(inflateRaw);
const brotliAsync = promisify(brotliDecompress);

/** `service.limits.body_timeout_ms`'s default, for bodies read without a configured limit. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export interface BodyOptions {
  /** Most bytes, on the wire and again after inflation (413 past it). */
  limit: number;
  /** Longest time the whole body may take to arrive (408 past it). */
  timeoutMs: number;
  /** Told the body's size as it grows (on the wire, then inflated); may throw to stop reading. */
  onSize?: (bytes: number) => void;
  /** Also take `Content-Encoding: br` (Sentry SDKs may send it; the /v1 routes do not take it). */
  brotli?: boolean;
}

/** The client closed the connection before its body had arrived: nobody is left to answer. */
export class ClientAbortError extends Error {
  constructor(cause: unknown) {
    super('the client closed the connection before the body was received', { cause });
    this.name = 'ClientAbortError';
  }
}

/** What a stream of the request throws when its socket closes mid-body. */
export function isClientAbort(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE' || message === 'aborted';
}

/**
 * Why a Content-Type's charset cannot be read, or undefined. JSON is UTF-8 (RFC 8259): bodies are
 * decoded as such, so another declared charset would be misread rather than honoured.
 */
export function unsupportedCharset(contentType: string | null): string | undefined {
  if (contentType === null) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const [name, ...rest] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = rest
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return `charset ${charset} is not supported; send UTF-8 (or no charset)`;
  }
  return undefined;
}

export function requireJsonContentType(event: H3Event): void {
  const type = event.req.headers.get('content-type');
  if (type === null) return; // a body without a type is read as JSON
  const essence = type.split(';')[0].trim().toLowerCase();
  if (essence !== 'application/json' && !essence.endsWith('+json'))
    throw errors.unsupportedMediaType(`content type ${essence} is not supported; send application/json`);
  const charset = unsupportedCharset(type);
  if (charset) throw errors.unsupportedMediaType(charset);
}

/** The content encodings every body may have (Sentry's routes also take br). */
const ENCODINGS = new Set(['identity', 'gzip', 'x-gzip', 'deflate', '']);

/** The body, decompressed, at most `limit` bytes before and after inflation. */
export async function readBody(event: H3Event, limitOrOptions: number | BodyOptions): Promise<Buffer> {
  const options = typeof limitOrOptions === 'number' ? { limit: limitOrOptions, timeoutMs: DEFAULT_BODY_TIMEOUT_MS } : limitOrOptions;
  const { limit } = options;
  const encoding = (event.req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  const brotli = options.brotli === true;
  if (!ENCODINGS.has(encoding) && !(brotli && encoding === 'br'))
    throw errors.unsupportedMediaType(`content encoding ${encoding} is not supported; use gzip, deflate${brotli ? ', br' : ''} or none`);
  if (declaredLength(event) > limit) throw errors.tooLarge(limit);
  const raw = await readCapped(event, options);
  if (encoding === 'identity' || encoding === '') return raw;
  let inflated: Buffer;
  try {
    if (encoding === 'deflate') {
      // HTTP's deflate is zlib-wrapped, but some clients send raw deflate: accept both.
      inflated = await inflateAsync(raw, { maxOutputLength: limit }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ERR_BUFFER_TOO_LARGE') throw error;
        return inflateRawAsync(raw, { maxOutputLength: limit });
      });
    } else if (encoding === 'br') inflated = await brotliAsync(raw, { maxOutputLength: limit });
    else inflated = await gunzipAsync(raw, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw errors.tooLarge(limit);
    throw errors.invalidJson(`the body is not valid ${encoding} data`);
  }
  options.onSize?.(inflated.length);
  return inflated;
}

export function parseJsonBody(body: Buffer, parse: (text: string) => unknown = JSON.parse): unknown {
  if (body.length === 0) throw errors.invalidJson('the body is empty; send a JSON document');
  try {
    return parse(body.toString('utf8'));
  } catch (error) {
    throw errors.invalidJson(`the body is not valid JSON: ${(error as Error).message}`);
  }
}

export async function readJson(event: H3Event, limitOrOptions: number | BodyOptions, parse: (text: string) => unknown = JSON.parse): Promise<unknown> {
  requireJsonContentType(event);
  return parseJsonBody(await readBody(event, limitOrOptions), parse);
}

/** Content-Length as declared, NaN when absent or not a number. */
export function declaredLength(event: H3Event): number {
  return Number(event.req.headers.get('content-length') ?? Number.NaN);
}

/**
 * Whether the handler stopped reading the body before its end (too large, too slow, over budget):
 * the answer then closes the connection, as the rest of the body is still on its way.
 */
export function bodyLeftUnread(event: H3Event): boolean {
  return event.context.bodyLeftUnread === true;
}

/** Every request reaches a route through srvx's Node adapter (HttpHost), so its body is the Node request. */
function readCapped(event: H3Event, options: BodyOptions): Promise<Buffer> {
  const req = event.runtime?.node?.req;
  if (!req) throw new Error('request bodies are read from the node:http request, and this event has none');
  return readNodeCapped(event, req, options);
}

/**
 * Reads on the request's events, not an async iterator raced against a timer per chunk, which
 * cost a measurable share of a small event's CPU. Reading that stops early (too large, too slow,
 * over budget) pauses the request and leaves the socket open, so the answer can still be written
 * (with `connection: close`); a socket that closes mid-body is a ClientAbortError.
 */
const ignore = (): void => undefined;

function readNodeCapped(event: H3Event, req: Readable & { readonly complete: boolean }, { limit, timeoutMs, onSize }: BodyOptions): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const received: Buffer[] = [];
    let total = 0;
    const stop = (error: unknown) => {
      detach();
      req.on('error', ignore); // what the socket does later is nobody's to hear
      event.context.bodyLeftUnread = true;
      req.pause();
      reject(isClientAbort(error) ? new ClientAbortError(error) : error);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      try {
        if (total > limit) throw errors.tooLarge(limit);
        onSize?.(total);
      } catch (error) {
        stop(error);
        return;
      }
      received.push(chunk);
    };
    const onEnd = () => {
      detach();
      resolve(Buffer.concat(received, total));
    };
    const onClose = () => stop(Object.assign(new Error('aborted'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    // A body the parser has already seen to its end, on a request still open, cannot be late: it
    // needs no timer (its 'end' follows from the buffer, or 'close' if the socket goes meanwhile).
    const timer = req.complete && !req.destroyed ? undefined : setTimeout(() => stop(errors.requestTimeout(timeoutMs)), timeoutMs);
    function detach(): void {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', stop);
      req.off('close', onClose);
    }
    if (req.readableEnded) {
      // Read to its end before (nothing more will come).
      detach();
      resolve(Buffer.alloc(0));
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', stop);
    req.on('close', onClose);
  });
}
