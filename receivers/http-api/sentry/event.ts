// A Sentry event payload (https://develop.sentry.dev/sdk/data-model/event-payloads/) as the body
// POST /v1/events takes, so that the events pipeline validates, symbolicates and groups it like
// any other. Each field is checked against the ingest schema on its own: a field that does not fit
// is left out with a note (it becomes a `processing_errors` entry), and the event is kept. Only an
// event with neither an exception nor a message is refused.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { ProcessingError } from '../../../src/records/event.js';
import { fitsSchema, schemaOutput } from '../../../src/records/schema-fits.js';
import { debugImageSchema, requestSchema, sdkSchema, stackFrameSchema, userSchema } from '../../../src/records/event-schema.js';
import { isJsonObject, type JsonObject } from './envelope.js';
import { sentryIso } from './time.js';

export type MappedEvent = { ok: true; body: JsonObject; eventId: string; notes: ProcessingError[] } | { ok: false; reason: string };

const LEVELS: Record<string, string> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  log: 'info',
  debug: 'debug',
};
/** LEVELS's own entries: a sender's `constructor` or `__proto__` is not a level. */
const OWN_LEVELS: ReadonlyMap<string, string> = new Map(Object.entries(LEVELS));
const FRAME_FIELDS = Object.keys(stackFrameSchema.shape) as Array<keyof typeof stackFrameSchema.shape>;
const HEX_ID = /^[0-9a-f]{32}$/;
const STRING_FIELDS = ['platform', 'dist'] as const;
/** Fields of the event that become tags of the same name (unless a tag says otherwise). */
const TAG_FIELDS = ['transaction', 'server_name'] as const;
/** Chains longer than this keep their outermost exceptions (the validation processor caps again). */
const MAX_CHAIN = 32;

/** 32 hex digits, as Sentry writes event ids (a new one when the payload has none usable). */
export function sentryEventId(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length === 32 && HEX_ID.test(value)) return value; // as SDKs send it
    const hex = value.replaceAll('-', '').toLowerCase();
    if (HEX_ID.test(hex)) return hex;
  }
  return randomUUID().replaceAll('-', '');
}

export function mapSentryEvent(payload: JsonObject, receivedAt: number, fallbackEventId?: string): MappedEvent {
  const notes: ProcessingError[] = [];
  const note = (path: string, message: string) => notes.push({ type: 'sentry_field_dropped', path, message });
  const eventId = sentryEventId(payload.event_id ?? fallbackEventId);
  const body: JsonObject = { id: eventId };

  const time = payload.timestamp === undefined ? undefined : sentryIso(payload.timestamp);
  if (payload.timestamp !== undefined && time === undefined) note('timestamp', 'not a number of seconds or an RFC 3339 time; the time of receipt is used');
  body.timestamp = time ?? new Date(receivedAt).toISOString();
  body.environment = nonEmptyString(payload.environment) ?? 'production';
  body.release = nonEmptyString(payload.release) ?? 'unknown';
  const level = typeof payload.level === 'string' ? OWN_LEVELS.get(payload.level.toLowerCase()) : undefined;
  if (payload.level !== undefined && level === undefined) note('level', `unknown level ${JSON.stringify(payload.level)}; error is used`);
  if (level) body.level = level;
  for (const field of STRING_FIELDS) {
    const value = nonEmptyString(payload[field]);
    if (value !== undefined && (field !== 'dist' || value.length <= 64)) body[field] = value;
    else if (payload[field] !== undefined) note(field, 'not a usable string');
  }
  const message = messageOf(payload);
  if (message !== undefined) body.message = message;

  const exception = exceptionChain(payload, note);
  if (exception) body.exception = exception;
  else if (message !== undefined) {
    // A message event (captureMessage) has no exception: its message stands in for one, with the
    // event's own stack trace when it has one.
    const frames = framesOf((payload.stacktrace as JsonObject | undefined)?.frames, 'stacktrace', note);
    body.exception = { type: 'Message', value: message, mechanism: { type: 'message', synthetic: true }, ...(frames && { stacktrace: frames }) };
  } else return { ok: false, reason: 'the event has neither an exception nor a message' };

  const tags = tagsOf(payload.tags, note);
  for (const field of TAG_FIELDS) {
    const value = nonEmptyString(payload[field]);
    if (value !== undefined && tags[field] === undefined) tags[field] = value;
  }
  if (Object.keys(tags).length) body.tags = tags;

  keep(body, 'user', userSchema, pick(payload.user, ['id', 'email', 'username', 'ip_address']), note);
  keep(body, 'request', requestSchema, requestOf(payload.request), note);
  keep(body, 'sdk', sdkSchema, pick(payload.sdk, ['name', 'version']), note);

  const contexts: JsonObject = {};
  if (isJsonObject(payload.contexts)) {
    for (const [name, value] of Object.entries(payload.contexts)) {
      if (isJsonObject(value)) contexts[name] = value;
      else note(`contexts.${name}`, 'a context must be an object');
    }
  } else if (payload.contexts !== undefined) note('contexts', 'must be an object');
  if (isJsonObject(payload.extra) && Object.keys(payload.extra).length) contexts.extra = payload.extra;
  if (Object.keys(contexts).length) body.contexts = contexts;
  const trace = contexts.trace as JsonObject | undefined;
  if (typeof trace?.trace_id === 'string' && /^[0-9A-Za-z_-]{1,64}$/.test(trace.trace_id)) body.trace_id = trace.trace_id.toLowerCase();
  const replayId = replayIdOf(contexts.replay as JsonObject | undefined, tags);
  if (replayId) body.replay_id = replayId;

  const breadcrumbs = breadcrumbsOf(payload.breadcrumbs, note);
  if (breadcrumbs.length) body.breadcrumbs = breadcrumbs;
  if (Array.isArray(payload.fingerprint)) {
    const parts = payload.fingerprint.filter((p): p is string | number => (typeof p === 'string' && p !== '') || typeof p === 'number').map(String);
    if (parts.length) body.fingerprint = parts;
    if (parts.length !== payload.fingerprint.length) note('fingerprint', 'entries that are not non-empty strings were left out');
  } else if (payload.fingerprint !== undefined) note('fingerprint', 'must be an array of strings');
  const images = debugImages(payload.debug_meta, note);
  if (images.length) body.debug_meta = { images };
  return { ok: true, body, eventId, notes };
}

function nonEmptyString(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** `logentry.formatted`, else `logentry.message` with its `params` filled in, else `message`. */
function messageOf(payload: JsonObject): string | undefined {
  const entry = isJsonObject(payload.logentry) ? payload.logentry : isJsonObject(payload.message) ? payload.message : undefined;
  if (entry) {
    if (typeof entry.formatted === 'string' && entry.formatted !== '') return entry.formatted;
    if (typeof entry.message === 'string' && entry.message !== '') return formatParams(entry.message, entry.params);
  }
  return typeof payload.message === 'string' && payload.message !== '' ? payload.message : undefined;
}

function formatParams(message: string, params: unknown): string {
  if (Array.isArray(params)) {
    let i = 0;
    return message.replace(/%[sdif%]/g, (token) => (token === '%%' ? '%' : i < params.length ? String(params[i++]) : token));
  }
  if (isJsonObject(params)) return message.replace(/%\((\w+)\)s/g, (token, name: string) => (name in params ? String(params[name]) : token));
  return message;
}

type Note = (path: string, message: string) => void;

/**
 * `exception.values` (or a bare array): the last value is the exception raised, each earlier one
 * what the next wraps. It becomes the raised exception with its `cause` chain down to the root.
 */
function exceptionChain(payload: JsonObject, note: Note): JsonObject | undefined {
  const container = payload.exception;
  const values = Array.isArray(container) ? container : isJsonObject(container) && Array.isArray(container.values) ? container.values : undefined;
  if (container !== undefined && values === undefined) note('exception', 'must be {values: [...]}');
  if (!values?.length) return undefined;
  let chain: JsonObject | undefined;
  // Root cause first: each later exception wraps the one before it.
  const start = Math.max(0, values.length - MAX_CHAIN);
  if (start > 0) note('exception.values', `${start} innermost exceptions left out (at most ${MAX_CHAIN})`);
  for (let i = start; i < values.length; i++) {
    const value: unknown = values[i];
    const path = `exception.values[${i}]`;
    if (!isJsonObject(value)) {
      note(path, 'an exception must be an object');
      continue;
    }
    const type = nonEmptyString(value.type);
    const text = typeof value.value === 'string' ? value.value : value.value === undefined ? '' : JSON.stringify(value.value);
    if (type === undefined && text === '') {
      note(path, 'has neither a type nor a value');
      continue;
    }
    const exception: JsonObject = { type: type ?? 'Error', value: text };
    if (typeof value.module === 'string' && value.module !== '') exception.module = value.module;
    if (isJsonObject(value.mechanism)) exception.mechanism = value.mechanism;
    const frames = framesOf((value.stacktrace as JsonObject | undefined)?.frames, `${path}.stacktrace.frames`, note);
    if (frames) exception.stacktrace = frames;
    if (chain) exception.cause = chain;
    chain = exception;
  }
  return chain;
}

/** Frames in the same order (oldest call first), each field kept when it fits the ingest schema. */
function framesOf(frames: unknown, path: string, note: Note): JsonObject[] | undefined {
  if (frames === undefined) return undefined;
  if (!Array.isArray(frames)) {
    note(path, 'must be an array of frames');
    return undefined;
  }
  const out: JsonObject[] = [];
  frames.forEach((frame: unknown, index) => {
    if (!isJsonObject(frame)) return note(`${path}[${index}]`, 'a frame must be an object');
    // The usual frame, whose every field fits and none is null: the schema's output of it is the
    // frame's fields in the schema's order, built and checked in one pass.
    const fitting = schemaOutput(stackFrameSchema, frame);
    if (fitting !== undefined) {
      if (fitting.debug_id !== undefined) fitting.debug_id = fitting.debug_id.toLowerCase(); // the pattern takes either case
      out.push(fitting);
      return;
    }
    const candidate: JsonObject = {};
    for (const field of FRAME_FIELDS) {
      const value = frame[field];
      if (value === undefined || value === null) continue;
      candidate[field] = field === 'debug_id' && typeof value === 'string' ? value.toLowerCase() : value;
    }
    // Else nulls are left out and the rest checked as a whole; field by field when that fails.
    if (fitsSchema(stackFrameSchema, candidate)) {
      out.push(candidate);
      return;
    }
    const kept: JsonObject = {};
    for (const [field, value] of Object.entries(candidate)) {
      if (fitsSchema(stackFrameSchema.shape[field as keyof typeof stackFrameSchema.shape], value)) kept[field] = value;
      else note(`${path}[${index}].${field}`, 'does not fit the frame schema');
    }
    out.push(kept);
  });
  return out;
}

/**
 * The replay an error happened in, named as the replay's own id (`rpl_` + the 32 hex digits the
 * replay integration sends in its replay_event): `@sentry/browser`'s replay integration tags the
 * error `replayId`; `contexts.replay.replay_id` is where Sentry's own server puts it.
 */
function replayIdOf(context: JsonObject | undefined, tags: Record<string, string>): string | undefined {
  for (const raw of [context?.replay_id, tags.replayId]) {
    if (typeof raw !== 'string') continue;
    const id = raw.replaceAll('-', '').toLowerCase();
    if (/^[0-9a-z_]{1,64}$/.test(id)) return `rpl_${id}`;
  }
  return undefined;
}

function tagsOf(tags: unknown, note: Note): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(tags)) {
    for (const pair of tags) if (Array.isArray(pair) && pair.length === 2) putTag(out, pair[0], pair[1]);
  } else if (isJsonObject(tags)) for (const key of Object.keys(tags)) putTag(out, key, tags[key]);
  else if (tags !== undefined) note('tags', 'must be an object or a list of [key, value] pairs');
  return out;
}

function putTag(out: Record<string, string>, key: unknown, value: unknown): void {
  if (typeof key !== 'string' || key === '') return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
}

function pick(value: unknown, fields: string[]): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const out: JsonObject = {};
  for (const field of fields) if (value[field] !== undefined && value[field] !== null) out[field] = value[field];
  return Object.keys(out).length ? out : undefined;
}

/** Sentry's request: headers and query strings may be lists of pairs; cookies and env are not kept. */
function requestOf(value: unknown): JsonObject | undefined {
  if (!isJsonObject(value)) return undefined;
  const out = pick(value, ['url', 'method', 'data']) ?? {};
  const headers = pairsToRecord(value.headers);
  if (headers) out.headers = headers;
  const query = value.query_string;
  if (typeof query === 'string' && query !== '') out.query_string = query;
  else if (query !== undefined) {
    const record = pairsToRecord(query);
    if (record) out.query_string = new URLSearchParams(record).toString();
  }
  return Object.keys(out).length ? out : undefined;
}

function pairsToRecord(value: unknown): Record<string, string> | undefined {
  const entries = Array.isArray(value) ? value : isJsonObject(value) ? Object.entries(value) : undefined;
  if (!entries) return undefined;
  const out: Record<string, string> = {};
  for (const pair of entries) {
    if (Array.isArray(pair) && typeof pair[0] === 'string' && (typeof pair[1] === 'string' || typeof pair[1] === 'number')) out[pair[0]] = String(pair[1]);
  }
  return Object.keys(out).length ? out : undefined;
}

/** Sets body[field] when the value fits its schema, else notes why it was left out. */
function keep(body: JsonObject, field: string, schema: z.ZodType, value: JsonObject | undefined, note: Note): void {
  if (value === undefined) return;
  if (fitsSchema(schema, value)) {
    body[field] = value;
    return;
  }
  const result = schema.safeParse(value); // again, for the wording of why
  if (!result.success) note(field, `left out: ${result.error.issues.map((i) => `${i.path.join('.') || field}: ${i.message}`).join('; ')}`);
}

function breadcrumbsOf(value: unknown, note: Note): JsonObject[] {
  const list = Array.isArray(value) ? value : isJsonObject(value) && Array.isArray(value.values) ? value.values : undefined;
  if (!list) {
    if (value !== undefined) note('breadcrumbs', 'must be {values: [...]}');
    return [];
  }
  const out: JsonObject[] = [];
  // Each field is taken only in a shape the breadcrumb schema accepts (a time sentryIso wrote, which
  // is toISOString's text; strings; a level of LEVELS, all levelSchema's; an object), so the
  // breadcrumb built fits it (test/receivers/sentry-mapping.test.ts) and is not checked again.
  for (const crumb of list) {
    if (!isJsonObject(crumb)) continue;
    const mapped: JsonObject = {};
    const time = crumb.timestamp === undefined ? undefined : sentryIso(crumb.timestamp);
    if (time) mapped.timestamp = time;
    if (typeof crumb.type === 'string') mapped.type = crumb.type;
    if (typeof crumb.category === 'string') mapped.category = crumb.category;
    if (typeof crumb.message === 'string') mapped.message = crumb.message;
    const level = typeof crumb.level === 'string' ? OWN_LEVELS.get(crumb.level.toLowerCase()) : undefined;
    if (level !== undefined) mapped.level = level;
    if (isJsonObject(crumb.data)) mapped.data = crumb.data;
    out.push(mapped);
  }
  if (out.length !== list.length) note('breadcrumbs', `${list.length - out.length} breadcrumbs that could not be read were left out`);
  return out;
}

/** The images symbolication uses (sourcemap, proguard, elf, macho, pe); others are not kept. */
function debugImages(value: unknown, note: Note): JsonObject[] {
  if (!isJsonObject(value) || !Array.isArray(value.images)) return [];
  const out: JsonObject[] = [];
  value.images.forEach((image: unknown, index) => {
    if (!isJsonObject(image) || typeof image.type !== 'string') return;
    const schema = debugImageSchema(image.type);
    if (!schema) return; // e.g. `symbolic`, `wasm`: not something this service symbolicates
    const fields = Object.keys(schema.shape);
    const kept = pick(image, fields) ?? {};
    if (fitsSchema(schema, kept)) out.push(kept);
    else note(`debug_meta.images[${index}]`, `a ${image.type} image without the fields symbolication needs`);
  });
  return out;
}
