// Checks one replay chunk (what POST /v1/replays decoded) and turns it into a ReplaySegment.
// Events must be rrweb events: objects with a known `type` (0-6), a `data` object and a numeric
// `timestamp` (epoch ms). Metadata is optional; long strings are truncated and lists trimmed.
import type { FieldError } from '../../../src/engine/item.js';
import { describeType } from '../../../src/records/json-type.js';
import { tooDeep } from '../depth.js';
import {
  REPLAY_ID,
  RRWEB_EVENT_TYPES,
  RRWEB_FULL_SNAPSHOT,
  RRWEB_META,
  type ReplayChunkInput,
  type ReplayNote,
  type ReplaySegment,
  type ReplayUser,
} from '../../../src/records/replay.js';

export type ReplayValidation = { ok: true; segment: Omit<ReplaySegment, 'project_id' | 'received_at'> } | { ok: false; errors: FieldError[] };

const MAX_STRING = 1024;
/**
 * rrweb nests a page's DOM two levels per element (`childNodes`, the node): deep enough for any
 * real page, and far from what overflows the stack of the JSON.stringify that stores the chunk.
 */
export const MAX_REPLAY_DEPTH = 1000;
const MAX_URLS = 100;
const MAX_IDS = 100;
/** Error ids are event UUIDs (dashed or 32 hex digits); trace ids like spans'. */
const EVENT_ID = /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
const TRACE_ID = /^[0-9A-Za-z_-]{1,64}$/;
/** Epoch milliseconds between 2000 and 2200: anything else is not an rrweb timestamp. */
const MIN_MS = 946_684_800_000;
const MAX_MS = 7_258_118_400_000;
const KNOWN_FIELDS = new Set([
  'replay_id',
  'segment_id',
  'timestamp',
  'events',
  'data',
  'environment',
  'release',
  'user',
  'urls',
  'error_ids',
  'trace_ids',
  'project_id',
]);

export function validateReplayChunk(input: ReplayChunkInput): ReplayValidation {
  const errors: FieldError[] = [];
  const notes: ReplayNote[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });
  const f = input.fields;

  const replayId = f.replay_id;
  if (replayId === undefined) fail('replay_id', 'is required');
  else if (typeof replayId !== 'string') fail('replay_id', `expected a string, got ${describeType(replayId)}`);
  else if (!REPLAY_ID.test(replayId)) fail('replay_id', 'must be rpl_ followed by 1-64 characters of [0-9A-Za-z_-]');

  let segmentId = f.segment_id;
  // The raw form's query parameters are text.
  if (typeof segmentId === 'string' && input.form === 'raw' && /^\d{1,9}$/.test(segmentId)) segmentId = Number(segmentId);
  if (segmentId === undefined) fail('segment_id', 'is required');
  else if (typeof segmentId !== 'number' || !Number.isSafeInteger(segmentId) || segmentId < 0 || segmentId > 2_147_483_647)
    fail('segment_id', `must be a non-negative integer, got ${typeof segmentId === 'number' ? segmentId : describeType(segmentId)}`);

  let chunkTime: number | undefined;
  if (f.timestamp !== undefined) {
    if (typeof f.timestamp === 'string' && !Number.isNaN(Date.parse(f.timestamp)) && /^\d{4}-\d{2}-\d{2}T/.test(f.timestamp))
      chunkTime = Date.parse(f.timestamp);
    else if (typeof f.timestamp === 'number' && f.timestamp >= MIN_MS && f.timestamp <= MAX_MS) chunkTime = f.timestamp;
    else fail('timestamp', 'must be an ISO 8601 date-time or epoch milliseconds');
  }

  const text = (path: string, value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return (fail(path, `expected a string, got ${describeType(value)}`), undefined);
    if (value.length > MAX_STRING) {
      notes.push({ type: 'truncated', path, message: `was ${value.length} characters; kept ${MAX_STRING}` });
      return value.slice(0, MAX_STRING);
    }
    return value;
  };
  const list = (path: string, value: unknown, pattern?: RegExp, max = MAX_IDS): string[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) return (fail(path, `expected an array of strings, got ${describeType(value)}`), []);
    const out: string[] = [];
    value.forEach((entry, i) => {
      if (typeof entry !== 'string') return fail(`${path}[${i}]`, `expected a string, got ${describeType(entry)}`);
      if (pattern && !pattern.test(entry)) return fail(`${path}[${i}]`, 'is not a valid id');
      const kept = text(`${path}[${i}]`, entry);
      if (kept !== undefined && !out.includes(kept)) out.push(kept);
    });
    if (out.length > max) {
      notes.push({ type: 'trimmed', path, message: `had ${out.length} entries; kept the first ${max}` });
      out.length = max;
    }
    return out;
  };

  const environment = text('environment', f.environment);
  const release = text('release', f.release);
  let user: ReplayUser | undefined;
  if (f.user !== undefined) {
    if (typeof f.user !== 'object' || f.user === null || Array.isArray(f.user)) fail('user', `expected an object, got ${describeType(f.user)}`);
    else {
      const u = f.user as Record<string, unknown>;
      const id = text('user.id', u.id);
      const email = text('user.email', u.email);
      if (id !== undefined || email !== undefined) user = { ...(id !== undefined && { id }), ...(email !== undefined && { email }) };
    }
  }
  const sentUrls = list('urls', f.urls, undefined, MAX_URLS);
  const errorIds = list('error_ids', f.error_ids, EVENT_ID).map(normalizeEventId);
  const traceIds = list('trace_ids', f.trace_ids, TRACE_ID).map((id) => (/^[0-9a-fA-F]+$/.test(id) ? id.toLowerCase() : id));
  for (const key of Object.keys(f)) if (!KNOWN_FIELDS.has(key)) notes.push({ type: 'unknown_field', path: key, message: 'is not a replay field; ignored' });

  // The events.
  const events = input.events;
  const eventsPath = input.form === 'events' ? 'events' : input.form === 'data' ? 'data' : 'body';
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let fullSnapshot = false;
  const metaUrls: string[] = [];
  if (!Array.isArray(events)) fail(eventsPath, `expected an array of rrweb events, got ${describeType(events)}`);
  else {
    if (events.length === 0) fail(eventsPath, 'must hold at least one rrweb event');
    const deep = tooDeep(events, MAX_REPLAY_DEPTH);
    if (deep !== undefined)
      return {
        ok: false,
        errors: [{ path: `${eventsPath}${deep.startsWith('[') ? '' : '.'}${deep}`, message: `nested deeper than ${MAX_REPLAY_DEPTH} levels` }],
      };
    let problems = 0;
    for (let i = 0; i < events.length && problems < 20; i++) {
      const event = events[i] as unknown;
      const at = `${eventsPath}[${i}]`;
      const before = errors.length;
      if (typeof event !== 'object' || event === null || Array.isArray(event)) fail(at, `expected an rrweb event object, got ${describeType(event)}`);
      else {
        const { type, data, timestamp } = event as Record<string, unknown>;
        if (typeof type !== 'number' || RRWEB_EVENT_TYPES[type] === undefined) fail(`${at}.type`, 'must be an rrweb event type (0-6)');
        if (typeof data !== 'object' || data === null) fail(`${at}.data`, `expected an object, got ${describeType(data)}`);
        if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < MIN_MS || timestamp > MAX_MS)
          fail(`${at}.timestamp`, 'must be epoch milliseconds');
        else {
          first = Math.min(first, timestamp);
          last = Math.max(last, timestamp);
        }
        if (type === RRWEB_FULL_SNAPSHOT) fullSnapshot = true;
        if (type === RRWEB_META && typeof data === 'object' && data !== null) {
          const href = (data as { href?: unknown }).href;
          if (typeof href === 'string' && href.length <= 4096 && !metaUrls.includes(href)) metaUrls.push(href);
        }
      }
      if (errors.length > before) problems++;
    }
  }
  if (errors.length) return { ok: false, errors };
  const eventList = events as unknown[];
  if (segmentId === 0 && !fullSnapshot)
    notes.push({ type: 'no_full_snapshot', path: eventsPath, message: 'the first segment holds no full snapshot (type 2): playback needs one to start' });
  const urls = [...metaUrls];
  for (const url of sentUrls) if (!urls.includes(url) && urls.length < MAX_URLS) urls.push(url);
  const eventsJson = JSON.stringify(eventList);
  return {
    ok: true,
    segment: {
      replay_id: replayId as string,
      segment_id: segmentId as number,
      started_at: new Date(Number.isFinite(first) ? first : (chunkTime as number)).toISOString(),
      finished_at: new Date(Number.isFinite(last) ? last : (chunkTime as number)).toISOString(),
      event_count: eventList.length,
      raw_bytes: Buffer.byteLength(eventsJson),
      has_full_snapshot: fullSnapshot,
      urls,
      ...(environment !== undefined && { environment }),
      ...(release !== undefined && { release }),
      ...(user && { user }),
      error_ids: errorIds,
      trace_ids: traceIds,
      processing_errors: notes,
      events_json: eventsJson,
    },
  };
}

function normalizeEventId(id: string): string {
  const lower = id.toLowerCase();
  return lower.length === 32 ? `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}` : lower;
}
