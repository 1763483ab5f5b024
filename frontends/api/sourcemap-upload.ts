// Reading a POST /v1/sourcemaps body into staging files, in either form:
// - multipart/form-data, parsed as a stream (busboy): fields project_id, release, dist; every file
//   part, whatever its field name, is an artifact named by its filename, its bytes written to a
//   staging file as they arrive, so the upload is never held in memory;
// - JSON {project_id, release, dist?, files: [{name, content, encoding?: "base64", type?}]}.
// Both are capped on the wire and again after inflation (gzip/deflate), and time out when the
// body stalls. What the files are is checked afterwards (records/artifact-content.ts): nothing is
// stored until every file of the upload passed.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createInflate, createInflateRaw, type Gunzip, type Inflate, type InflateRaw } from 'node:zlib';
import busboy from 'busboy';
import type { H3Event } from 'h3';
import { z } from 'zod';
import { apiErrorMap, toFieldErrors } from '../../src/records/zod-issues.js';
import type { FieldError } from '../../src/engine/item.js';
import { ClientAbortError, declaredLength, isClientAbort, parseJsonBody, requireJsonContentType } from '../../src/http/body.js';
import { ApiError, errors } from '../../src/http/errors.js';
import { ARTIFACT_TYPES, type ArtifactType } from '../../src/records/artifact.js';
import { typeOfMediaType } from '../../src/records/artifact-content.js';

/** Most files in one upload. */
export const MAX_UPLOAD_FILES = 10_000;
/** Longest release (events' strings are cut at the validation processor's max_string_length, 1024 by default). */
export const MAX_RELEASE_LENGTH = 1024;
export const MAX_DIST_LENGTH = 64;

export interface UploadOptions {
  /** limits.sourcemap_upload_bytes: on the wire and after inflation. */
  limit: number;
  /** limits.body_timeout_ms: longest the body may stall (no bytes arriving). */
  stallMs: number;
  /** Where a file's bytes go while the upload is read (ArtifactStore.stagingPath). */
  stagingPath: () => string;
}

/** A file of the upload, its bytes in a staging file. */
export interface UploadedFile {
  /** Its place in the upload (`files[index]` in problems' paths): the JSON entry, or the file part. */
  index: number;
  name: string;
  /** As the sender gave it (the JSON `type`, a part's Content-Type): undefined leaves it to detection. */
  declaredType?: ArtifactType;
  path: string;
  size: number;
  sha256: string;
}

export interface Upload {
  fields: { project_id?: string; release?: string; dist?: string };
  files: UploadedFile[];
  /** Problems of the form itself (missing or malformed fields, bad file entries), by path. */
  problems: FieldError[];
}

export async function removeStaged(files: readonly UploadedFile[]): Promise<void> {
  await Promise.all(files.map((file) => rm(file.path, { force: true })));
}

export function isMultipart(event: H3Event): boolean {
  return (event.req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase() === 'multipart/form-data';
}

export async function readUpload(event: H3Event, options: UploadOptions): Promise<Upload> {
  if (isMultipart(event)) return readMultipart(event, options);
  requireJsonContentType(event);
  return readJsonUpload(event, options);
}

const FIELDS = ['project_id', 'release', 'dist'] as const;

async function readMultipart(event: H3Event, options: UploadOptions): Promise<Upload> {
  const upload: Upload = { fields: {}, files: [], problems: [] };
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': event.req.headers.get('content-type') ?? '' },
      defParamCharset: 'utf8',
      preservePath: true, // a filename is the artifact's name: a URL or ~/path, not a base name
      limits: { files: MAX_UPLOAD_FILES, fields: 20, fieldSize: 64 * 1024 },
    });
  } catch (error) {
    throw new ApiError(400, 'bad_request', `the multipart body cannot be read: ${(error as Error).message}`);
  }
  const writes: Array<Promise<void>> = [];
  parser.on('field', (name, value, info) => {
    if (!(FIELDS as readonly string[]).includes(name)) upload.problems.push({ path: name, message: 'unknown field (fields: project_id, release, dist)' });
    else if (info.valueTruncated) upload.problems.push({ path: name, message: 'is too long' });
    else upload.fields[name as (typeof FIELDS)[number]] = value;
  });
  parser.on('file', (_field, stream, info) => {
    const file: UploadedFile = {
      index: upload.files.length,
      name: info.filename ?? '',
      declaredType: typeOfMediaType(info.mimeType),
      path: options.stagingPath(),
      size: 0,
      sha256: '',
    };
    upload.files.push(file);
    const write = stage(stream, file);
    write.catch((error: unknown) => parser.destroy(error as Error));
    writes.push(write);
  });
  parser.on('filesLimit', () =>
    parser.destroy(errors.validation('the upload is invalid', [{ path: 'files', message: `at most ${MAX_UPLOAD_FILES} files per upload` }])),
  );
  parser.on('fieldsLimit', () => parser.destroy(errors.validation('the upload is invalid', [{ path: '', message: 'too many fields' }])));
  try {
    await pipeline(Readable.from(bodyChunks(event, options, 'bad_request')), parser);
    await Promise.all(writes);
  } catch (error) {
    await Promise.allSettled(writes);
    await removeStaged(upload.files);
    if (error instanceof ApiError || error instanceof ClientAbortError) throw error;
    if (isClientAbort(error)) throw new ClientAbortError(error);
    // busboy's own errors carry no code; the file system's do (and are the service's failures).
    if (error instanceof Error && (error as NodeJS.ErrnoException).code === undefined)
      throw new ApiError(400, 'bad_request', `the multipart body is malformed: ${error.message}`);
    throw error;
  }
  upload.problems.push(...fieldProblems(upload.fields, upload.files.length));
  return upload;
}

/** release (required, 1-1024 characters), dist (1-64), at least one file. */
function fieldProblems({ release, dist }: Upload['fields'], files: number): FieldError[] {
  const problems: FieldError[] = [];
  if (release === undefined) problems.push({ path: 'release', message: 'is required' });
  else if (release.trim() === '') problems.push({ path: 'release', message: 'must not be empty' });
  else if (release.length > MAX_RELEASE_LENGTH) problems.push({ path: 'release', message: `must be at most ${MAX_RELEASE_LENGTH} characters` });
  if (dist !== undefined && (dist === '' || dist.length > MAX_DIST_LENGTH)) problems.push({ path: 'dist', message: `must be 1-${MAX_DIST_LENGTH} characters` });
  if (files === 0) problems.push({ path: 'files', message: 'must hold at least one file' });
  return problems;
}

/** Writes a file's bytes to its staging file, counting and hashing them on the way. */
async function stage(source: Readable, file: UploadedFile): Promise<void> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, tap, createWriteStream(file.path, { flags: 'wx', mode: 0o600 }));
  file.size = size;
  file.sha256 = hash.digest('hex');
}

const fileEntrySchema = z
  .object({
    name: z.string(),
    content: z.string(),
    encoding: z.enum(['base64']).optional().meta({ description: 'base64: content is the bytes in base64; absent: content is the text (UTF-8)' }),
    type: z.enum(ARTIFACT_TYPES).optional().meta({ description: 'Absent: told from the name (.map, .js/.mjs/.cjs, .sym, .txt) and the content' }),
  })
  .strict();

/** The JSON form of POST /v1/sourcemaps (its OpenAPI request body too). */
export const sourcemapUploadSchema = z
  .object({
    project_id: z.string().optional().meta({ description: 'Required with an organization key; a project key may omit it' }),
    release: z.string(),
    dist: z.string().optional(),
    files: z.array(fileEntrySchema).min(1, 'must hold at least one file').max(MAX_UPLOAD_FILES, `at most ${MAX_UPLOAD_FILES} files per upload`),
  })
  .strict();

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

async function readJsonUpload(event: H3Event, options: UploadOptions): Promise<Upload> {
  const chunks: Buffer[] = [];
  for await (const chunk of bodyChunks(event, options, 'invalid_json')) chunks.push(chunk);
  const body = parseJsonBody(Buffer.concat(chunks));
  const parsed = sourcemapUploadSchema.safeParse(body, { error: apiErrorMap });
  if (!parsed.success) {
    // The project still decides between 400, 403 and 404 first, as with a valid body.
    const projectId = (body as { project_id?: unknown } | null)?.project_id;
    return { fields: { project_id: typeof projectId === 'string' ? projectId : undefined }, files: [], problems: toFieldErrors(parsed.error.issues) };
  }
  const { files: entries, ...fields } = parsed.data;
  const upload: Upload = { fields, files: [], problems: [] };
  try {
    for (const [i, entry] of entries.entries()) {
      if (entry.encoding === 'base64' && !BASE64.test(entry.content)) {
        upload.problems.push({ path: `files[${i}].content`, message: 'is not valid base64' });
        continue;
      }
      const bytes = Buffer.from(entry.content, entry.encoding === 'base64' ? 'base64' : 'utf8');
      const file: UploadedFile = {
        index: i,
        name: entry.name,
        declaredType: entry.type,
        path: options.stagingPath(),
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      };
      upload.files.push(file);
      await writeFile(file.path, bytes, { flag: 'wx', mode: 0o600 });
    }
  } catch (error) {
    await removeStaged(upload.files);
    throw error;
  }
  upload.problems.push(...fieldProblems(upload.fields, entries.length));
  return upload;
}

/**
 * The body's bytes, inflated: at most `limit` on the wire (413 as soon as it is past, or before
 * reading when Content-Length says so) and again after inflation; 408 when nothing arrives for
 * `stallMs`. When reading stops early the rest of the body is left on the socket (the answer then
 * closes the connection). `corrupt`: the error code for a body that is not valid gzip/deflate.
 */
export async function* bodyChunks(event: H3Event, { limit, stallMs }: UploadOptions, corrupt: 'bad_request' | 'invalid_json'): AsyncGenerator<Buffer> {
  const encoding = (event.req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (!['identity', 'gzip', 'x-gzip', 'deflate', ''].includes(encoding))
    throw errors.unsupportedMediaType(`content encoding ${encoding} is not supported; use gzip, deflate or none`);
  if (declaredLength(event) > limit) throw errors.tooLarge(limit);
  const wire = wireChunks(event, limit, stallMs);
  if (encoding === 'identity' || encoding === '') {
    yield* wire;
    return;
  }
  const first = await wire.next();
  if (first.done) return;
  const inflater: Gunzip | Inflate | InflateRaw = encoding === 'deflate' ? (isZlibHeader(first.value) ? createInflate() : createInflateRaw()) : createGunzip(); // HTTP's deflate is zlib-wrapped; some send it raw
  const source = Readable.from(
    (async function* () {
      yield first.value;
      yield* wire;
    })(),
  );
  source.on('error', (error) => inflater.destroy(error));
  source.pipe(inflater);
  let total = 0;
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) throw errors.tooLarge(limit);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof ClientAbortError) throw error;
    if ((error as NodeJS.ErrnoException).code?.startsWith('Z_')) throw new ApiError(400, corrupt, `the body is not valid ${encoding} data`);
    throw error;
  } finally {
    source.destroy();
  }
}

/** The first two bytes of a zlib stream: deflate (8) with a window, and a check making them a multiple of 31. */
function isZlibHeader(chunk: Buffer): boolean {
  return chunk.length >= 2 && (chunk[0] & 0x0f) === 8 && (chunk[0] * 256 + chunk[1]) % 31 === 0;
}

async function* wireChunks(event: H3Event, limit: number, stallMs: number): AsyncGenerator<Buffer> {
  const source: AsyncIterable<Uint8Array> | null = event.runtime?.node?.req ?? event.req.body;
  if (!source) return;
  // Pulled by hand, and left as it is when reading stops early: closing the request's iterator
  // would destroy the socket, and with it the answer.
  const chunks = source[Symbol.asyncIterator]();
  let total = 0;
  let ended = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>((resolve) => {
        timer = setTimeout(() => resolve('stalled'), stallMs);
      });
      const next = chunks.next();
      let result: IteratorResult<Uint8Array> | 'stalled';
      try {
        result = await Promise.race([next, stalled]);
      } catch (error) {
        throw isClientAbort(error) ? new ClientAbortError(error) : error;
      } finally {
        clearTimeout(timer);
      }
      if (result === 'stalled') {
        next.catch(() => undefined); // settles when the connection closes
        throw new ApiError(408, 'request_timeout', `no bytes of the body arrived for ${stallMs} ms; the upload stalled`, [], { connection: 'close' });
      }
      if (result.done) break;
      total += result.value.length;
      if (total > limit) throw errors.tooLarge(limit);
      yield Buffer.from(result.value.buffer, result.value.byteOffset, result.value.length);
    }
    ended = true;
  } finally {
    if (!ended) event.context.bodyLeftUnread = true;
  }
}
