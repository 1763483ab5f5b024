// POST /v1/replays: one chunk (segment) of an rrweb session recording into the replays pipelines.
// Three body forms (DESIGN.md, "Replays"):
//   - JSON `{replay_id, segment_id, timestamp?, events: [rrweb events], …metadata}`;
//   - JSON `{replay_id, segment_id, …, data: "<base64 of a gzip or zlib JSON array of events>"}`;
//   - a raw body (the JSON array of events, usually with Content-Encoding: gzip, or a gzip file as
//     application/gzip) with `replay_id` and `segment_id` (and optional metadata) as query parameters.
// Every form is capped at limits.replay_chunk_bytes on the wire and again after inflation; the
// inflation itself stops at the cap (zlib's maxOutputLength), so a small bomb never grows in memory.
import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import type { Consumer } from '../../../src/engine/component.js';
import { catalogOf } from '../../../extensions/catalog/index.js';
import type { Host } from '../../../src/engine/host.js';
import { parseJsonBody, unsupportedCharset } from '../../../src/http/body.js';
import { takeOne } from '../../../src/http/intake.js';
import { errors } from '../../../src/http/errors.js';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../../src/http/host.js';
import type { ReplayChunkInput, ReplaySegment } from '../../../src/records/replay.js';
import { resolveProject, tenantOf } from '../../../src/auth/scope.js';
import { ingestProject, INGEST_PROJECT_DOC } from '../ingest-params.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

export interface ReplayIngestOptions {
  host: Host;
  receiverId: string;
  consumer: Consumer;
  maxBytes: number;
}

/** Query parameters the raw form takes its fields from (lists comma-separated). */
const RAW_TEXT_FIELDS = ['replay_id', 'segment_id', 'timestamp', 'environment', 'release'] as const;
const RAW_LIST_FIELDS = ['urls', 'error_ids', 'trace_ids'] as const;
const GZIP_TYPES = ['application/gzip', 'application/x-gzip'];

export function replayIngestRoute({ host, receiverId, consumer, maxBytes }: ReplayIngestOptions): RouteDefinition {
  const { metrics, settings } = host;
  const catalog = catalogOf(host);
  const refused = (reason: string) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'replays', reason });
  return {
    method: 'POST',
    path: '/v1/replays',
    summary: 'Ingest one session replay chunk (rrweb events); 202 once it is stored',
    tag: 'replays',
    auth: true,
    query: [
      INGEST_PROJECT_DOC,
      { name: 'replay_id', description: 'Raw form only: the replay id (rpl_…)', schema: { type: 'string' } },
      { name: 'segment_id', description: 'Raw form only: the segment number (0, 1, …)', schema: { type: 'integer', minimum: 0 } },
      { name: 'timestamp', description: 'Raw form only (optional): the chunk time', schema: { type: 'string' } },
      { name: 'environment', description: 'Raw form only (optional)', schema: { type: 'string' } },
      { name: 'release', description: 'Raw form only (optional)', schema: { type: 'string' } },
      { name: 'user.id', description: 'Raw form only (optional)', schema: { type: 'string' } },
      { name: 'user.email', description: 'Raw form only (optional)', schema: { type: 'string' } },
      { name: 'urls', description: 'Raw form only (optional): comma-separated', schema: { type: 'string' } },
      { name: 'error_ids', description: 'Raw form only (optional): comma-separated event ids', schema: { type: 'string' } },
      { name: 'trace_ids', description: 'Raw form only (optional): comma-separated', schema: { type: 'string' } },
    ],
    requestBody: { contentType: 'application/json', schema: replayChunkSchema },
    responses: {
      202: 'Stored (durable): {replay_id, segment_id, status: "stored"}; the same (replay_id, segment_id) again stores nothing new',
      400: 'invalid_json or validation_failed (every problem listed in details)',
      401: 'unauthorized',
      403: 'forbidden',
      404: 'not_found (project)',
      408: 'request_timeout (the body took longer than limits.body_timeout_ms)',
      413: `payload_too_large (over ${maxBytes} bytes on the wire or inflated)`,
      415: 'unsupported_media_type (not JSON, gzip or octet-stream; an unknown content encoding; a charset other than UTF-8)',
      429: 'rate_limited',
      503: 'overloaded (Retry-After), or unavailable when storage cannot take it (retry)',
    },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const project = await resolveProject(catalog, principal, ingestProject(ctx));
      const raw = ctx.query.has('replay_id') || ctx.query.has('segment_id');
      let gzipFile = false;
      const item = await takeOne(ctx.event, consumer, {
        tenant: tenantOf(principal, project),
        size: Number(ctx.event.req.headers.get('content-length')) || 64 * 1024,
        limit: maxBytes,
        timeoutMs: settings.limits.body_timeout_ms,
        check: () => {
          gzipFile = checkContentType(ctx, raw);
        },
        parse: (body) => (raw ? rawChunk(ctx, body, gzipFile, maxBytes) : jsonChunk(body, maxBytes)),
        refused,
      });
      const outcome = item.outcome;
      const segment = item.data as ReplaySegment;
      if (outcome?.kind === 'dropped')
        return json(ctx, 202, { replay_id: segment.replay_id ?? null, segment_id: segment.segment_id ?? null, status: 'dropped', reason: outcome.reason });
      metrics.receiverAccepted.inc({ receiver: receiverId, signal: 'replays' });
      return json(ctx, 202, { replay_id: segment.replay_id, segment_id: segment.segment_id, status: 'stored' });
    },
  };
}

/** 415 for a type the form does not take; true when the body is a gzip file (application/gzip). */
function checkContentType(ctx: RequestContext, raw: boolean): boolean {
  const type = ctx.event.req.headers.get('content-type');
  if (type === null) return false;
  const essence = type.split(';')[0].trim().toLowerCase();
  const charset = unsupportedCharset(type);
  if (charset) throw errors.unsupportedMediaType(charset);
  if (essence === 'application/json' || essence.endsWith('+json')) return false;
  if (raw && essence === 'application/octet-stream') return false;
  if (raw && GZIP_TYPES.includes(essence)) return true;
  throw errors.unsupportedMediaType(
    raw
      ? `content type ${essence} is not supported; send application/json or application/octet-stream (with Content-Encoding: gzip), or application/gzip`
      : `content type ${essence} is not supported; send application/json (or replay_id and segment_id as query parameters with a raw gzip body)`,
  );
}

async function jsonChunk(body: Buffer, maxBytes: number): Promise<ReplayChunkInput> {
  const parsed = parseJsonBody(body);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw errors.validation('the body must be a JSON object {replay_id, segment_id, events | data}', [{ path: '', message: 'expected an object' }]);
  const fields = parsed as Record<string, unknown>;
  const { events, data, ...rest } = fields;
  if (events !== undefined && data !== undefined)
    throw errors.validation('send either events or data, not both', [{ path: 'data', message: 'not allowed together with events' }]);
  if (data === undefined) {
    if (events === undefined) throw errors.validation('the chunk has no events', [{ path: 'events', message: 'is required (or data)' }]);
    return { fields: rest, events, form: 'events' };
  }
  if (typeof data !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(data) || data.length === 0)
    throw errors.validation('data must be base64', [{ path: 'data', message: 'must be a base64 string of gzip or zlib compressed JSON' }]);
  const compressed = Buffer.from(data, 'base64');
  const inflated = await inflateCapped(compressed, maxBytes, 'data');
  return { fields: rest, events: parseEvents(inflated, 'data'), form: 'data' };
}

async function rawChunk(ctx: RequestContext, body: Buffer, gzipFile: boolean, maxBytes: number): Promise<ReplayChunkInput> {
  const q = ctx.query;
  const fields: Record<string, unknown> = {};
  for (const name of RAW_TEXT_FIELDS) {
    const value = q.get(name);
    if (value !== null) fields[name] = value;
  }
  for (const name of RAW_LIST_FIELDS) {
    const value = q.get(name);
    if (value !== null) fields[name] = value.split(',').filter((v) => v !== '');
  }
  const userId = q.get('user.id');
  const userEmail = q.get('user.email');
  if (userId !== null || userEmail !== null) fields.user = { ...(userId !== null && { id: userId }), ...(userEmail !== null && { email: userEmail }) };
  // A gzip file as the body (application/gzip) rather than a gzip content encoding.
  const bytes = gzipFile ? await inflateCapped(body, maxBytes, 'body') : body;
  return { fields, events: parseEvents(bytes, 'body'), form: 'raw' };
}

/** gzip or zlib data inflated, at most `maxBytes` (413 past it: inflation stops there). */
export async function inflateCapped(compressed: Buffer, maxBytes: number, path: string): Promise<Buffer> {
  const gzipped = compressed.length >= 2 && compressed[0] === 0x1f && compressed[1] === 0x8b;
  const zlibbed = compressed.length >= 2 && (compressed[0] & 0x0f) === 8 && ((compressed[0] << 8) | compressed[1]) % 31 === 0;
  if (!gzipped && !zlibbed) throw errors.validation(`${path} is not gzip or zlib data`, [{ path, message: 'must be gzip or zlib compressed JSON' }]);
  try {
    return await (gzipped ? gunzipAsync : inflateAsync)(compressed, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw errors.tooLarge(maxBytes);
    throw errors.validation(`${path} could not be inflated`, [{ path, message: `is not valid ${gzipped ? 'gzip' : 'zlib'} data` }]);
  }
}

export function parseEvents(bytes: Buffer, path: string): unknown {
  if (bytes.length === 0) throw errors.validation('the chunk has no events', [{ path, message: 'is empty' }]);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw errors.invalidJson(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

const replayChunkSchema = {
  type: 'object',
  required: ['replay_id', 'segment_id'],
  properties: {
    replay_id: { type: 'string', pattern: '^rpl_[0-9A-Za-z_-]{1,64}$' },
    segment_id: { type: 'integer', minimum: 0 },
    timestamp: { type: 'string', format: 'date-time', description: 'The chunk time (used when it has no event times)' },
    events: {
      type: 'array',
      description: 'rrweb events; or `data` instead',
      items: {
        type: 'object',
        required: ['type', 'data', 'timestamp'],
        properties: { type: { type: 'integer', minimum: 0, maximum: 6 }, data: { type: 'object' }, timestamp: { type: 'integer', description: 'Epoch ms' } },
      },
    },
    data: { type: 'string', description: 'Base64 of a gzip or zlib compressed JSON array of rrweb events; or `events` instead' },
    environment: { type: 'string' },
    release: { type: 'string' },
    user: { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' } } },
    urls: { type: 'array', items: { type: 'string' } },
    error_ids: { type: 'array', items: { type: 'string' }, description: 'Ids of error events of this replay' },
    trace_ids: { type: 'array', items: { type: 'string' } },
  },
};
