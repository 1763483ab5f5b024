// An event stored as the body it was received in plus a small derived record, instead of the JSON
// of the whole rebuilt event (event-document.ts): what the pipeline added (ids, times, issue,
// title, root cause, notes), the exceptions' types and modules, the final in_app flag of each
// received frame and, when symbolication changed a stack trace, its frames (the received ones by
// index, the new ones whole). Reading merges the two back into exactly the event the pipeline
// had, so the document read is the one eventDocumentJson wrote before (test/records/event-body.test.ts
// compares them over a corpus of bodies run through the real processors).
//
// The event is rebuilt from the schema's output of the body (the compiled accept-path, zod when it
// is unsure), so a body is stored only when validation changed nothing in that output but the id
// and the timestamp and left out no unknown field (the validation processor attaches the body to
// the event only then), and when nothing was scrubbed: what validation discarded or the scrubber
// removed never reaches the disk. Every other event is stored as its whole document. A Sentry
// payload is not kept as received, since its mapping leaves out what the ingest body has no field
// for (modules, the user's other fields, cookies, …): the ingest body it was mapped to is
// serialized once and stored as the body.
//
// Stored value, told apart by its first byte: `{` is a whole document (the layout written before
// this one, and still the fallback); 0x01 is `0x01 <derived JSON> \n <body bytes>`. The derived
// JSON holds no raw newline (JSON.stringify escapes them), so the first newline ends it.
import { isUtf8 } from 'node:buffer';
import { compileAccept, UNSURE } from './compiled-accept.js';
import { eventDocumentJson } from './event-document.js';
import { errorEventInputSchema } from './event-schema.js';
import type { ErrorEvent, ExceptionInfo, StackFrame } from './event.js';

/** The bytes an ingest body was parsed from, or the ingest body itself when it was mapped from another format. */
type ReceivedBody = { bytes: Buffer } | { mapped: object };

/** The received body of an ingest item, on its parsed JSON and then on the validated event. */
const RECEIVED_BODY: unique symbol = Symbol('received body');
type WithBody = { [RECEIVED_BODY]?: ReceivedBody };

const BODY_LAYOUT = 0x01;
const BODY_LAYOUT_CHAR = String.fromCharCode(BODY_LAYOUT);
const DOCUMENT_LAYOUT = 0x7b; // `{`

/** The fields an ingest body has: the derived record carries only the id and timestamp of these. */
const BODY_FIELDS: ReadonlySet<string> = new Set(Object.keys(errorEventInputSchema.shape));
/** What the document leaves out (toEventDocument), or carries elsewhere (the exception). */
const NOT_DERIVED: ReadonlySet<string> = new Set(['exception', 'raw_stacktrace', 'grouping_hash', 'issue_transition', 'grouping_fallback_issue_id']);
/** Exceptions of a chain the derived record follows; validation caps chains far below it. */
const MAX_CHAIN = 64;

/** Reading parses the body anew and owns it: the event is made of its objects (see compileAccept's reuse). */
const acceptEvent = compileAccept(errorEventInputSchema, { reuse: true });

/** Keeps the bytes `parsed` was parsed from on it (a JSON object; anything else is left alone). */
export function keepReceivedBody(parsed: unknown, bytes: Buffer): unknown {
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) (parsed as WithBody)[RECEIVED_BODY] = { bytes };
  return parsed;
}

/** Marks an ingest body a receiver mapped from another format (a Sentry payload) as one to serialize and store as the body. */
export function keepMappedBody(body: object): void {
  (body as WithBody)[RECEIVED_BODY] = { mapped: body };
}

/** What a parsed body came from, if its receiver kept it. */
export function receivedBodyOf(parsed: unknown): ReceivedBody | undefined {
  return typeof parsed === 'object' && parsed !== null ? (parsed as WithBody)[RECEIVED_BODY] : undefined;
}

/**
 * Marks the event as the schema's output of its received body plus what the pipeline derives
 * (validation's call), or, with undefined, as not (an event made of the parsed body's own objects
 * carries the body's mark until then).
 */
export function attachReceivedBody(event: ErrorEvent, received: ReceivedBody | undefined): void {
  (event as WithBody)[RECEIVED_BODY] = received;
}

/** One exception of the chain in the derived record. */
interface DerivedException {
  /** Type, and module when it has one: symbolication (ProGuard) may rename them. */
  t: string;
  m?: string;
  /** The final in_app of each received frame, `t`, `f` or `-` (unset): grouping marks vendor frames. */
  a?: string;
  /** The final frames when symbolication changed them: a received frame by its index, a new one whole. */
  f?: Array<number | StackFrame>;
}

interface Derived {
  /** The id, the timestamp and every field the pipeline added, in the event's order. */
  top: Record<string, unknown>;
  chain: DerivedException[];
}

/**
 * The stored value of an event: its body and derived record when it has a body that may be stored
 * as received, else its whole document (the same as before this layout).
 */
export function encodeStoredEvent(event: ErrorEvent): Buffer | string {
  const received = (event as WithBody)[RECEIVED_BODY];
  if (received === undefined || (event.scrubbed !== undefined && event.scrubbed.length > 0)) return eventDocumentJson(event);
  if ('bytes' in received && !isUtf8(received.bytes)) return eventDocumentJson(event);
  const derived = deriveRecord(event);
  if (derived === undefined) return eventDocumentJson(event);
  const json = JSON.stringify(derived);
  // A mapped body is text already: the value is written as text (LMDB encodes it once).
  if ('mapped' in received) return `${BODY_LAYOUT_CHAR}${json}\n${JSON.stringify(received.mapped)}`;
  const body = received.bytes;
  const head = Buffer.byteLength(json);
  const value = Buffer.allocUnsafe(head + 2 + body.length);
  value[0] = BODY_LAYOUT;
  value.write(json, 1);
  value[head + 1] = 0x0a;
  body.copy(value, head + 2);
  return value;
}

/** Whether a stored value is a body and derived record (else it is a whole document). */
export function isStoredBody(stored: string | Buffer): boolean {
  return typeof stored === 'string' ? stored.charCodeAt(0) === BODY_LAYOUT : stored[0] === BODY_LAYOUT;
}

/** The event a stored value holds (without what the document leaves out: grouping_hash, issue_transition). */
export function decodeStoredEvent(stored: string): ErrorEvent {
  if (stored.charCodeAt(0) === BODY_LAYOUT) return mergeBody(stored);
  if (stored.charCodeAt(0) !== DOCUMENT_LAYOUT) throw new Error(`not a stored event (first character ${stored.charCodeAt(0)})`);
  const { exception, ...rest } = JSON.parse(stored) as ErrorEvent & { exception: { raw_stacktrace?: StackFrame[] } };
  const { raw_stacktrace, ...symbolicated } = exception;
  return { ...rest, exception: symbolicated, raw_stacktrace };
}

/** The document JSON of a stored value: a whole document as stored, a body merged with its derived record. */
export function storedEventJson(stored: string): string {
  return stored.charCodeAt(0) === BODY_LAYOUT ? eventDocumentJson(mergeBody(stored)) : stored;
}

function deriveRecord(event: ErrorEvent): Derived | undefined {
  const top: Record<string, unknown> = {};
  const fields = event as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (NOT_DERIVED.has(key) || (BODY_FIELDS.has(key) && key !== 'id' && key !== 'timestamp')) continue;
    top[key] = fields[key];
  }
  const chain: DerivedException[] = [];
  for (let e: ExceptionInfo | undefined = event.exception, depth = 0; e !== undefined; e = e.cause, depth++) {
    if (depth === MAX_CHAIN) return undefined;
    const received = (depth === 0 ? event.raw_stacktrace : e.raw_stacktrace) ?? e.stacktrace;
    const entry: DerivedException = { t: e.type };
    if (e.module !== undefined) entry.m = e.module;
    if (received !== undefined && received.length > 0) entry.a = inAppFlags(received);
    if (received !== e.stacktrace) entry.f = changedFrames(received ?? [], e.stacktrace ?? []);
    chain.push(entry);
  }
  return { top, chain };
}

function inAppFlags(frames: StackFrame[]): string {
  let flags = '';
  for (const frame of frames) flags += frame.in_app === undefined ? '-' : frame.in_app ? 't' : 'f';
  return flags;
}

/** The final frames, each received one by its index (so only the frames symbolication made are stored whole). */
function changedFrames(received: StackFrame[], final: StackFrame[]): Array<number | StackFrame> {
  const index = new Map<StackFrame, number>();
  received.forEach((frame, i) => index.set(frame, i));
  return final.map((frame) => index.get(frame) ?? frame);
}

/** The event a body-layout value holds: the schema's output of the body, with the derived record applied as the pipeline did. */
function mergeBody(stored: string): ErrorEvent {
  const newline = stored.indexOf('\n');
  const derived = JSON.parse(stored.slice(1, newline)) as Derived;
  const parsed = bodyFields(JSON.parse(stored.slice(newline + 1)));
  const event = (Object.hasOwn(parsed, 'id') ? parsed : { id: '', ...parsed }) as unknown as ErrorEvent;
  Object.assign(event, derived.top);
  let e: ExceptionInfo | undefined = event.exception;
  for (let depth = 0; depth < derived.chain.length; depth++, e = e.cause) {
    if (e === undefined) throw new Error(`stored event ${event.id}: its body has fewer exceptions than its derived record`);
    const { t, m, a, f } = derived.chain[depth];
    if (e.type !== t) e.type = t;
    if (m !== undefined && e.module !== m) e.module = m;
    const received = e.stacktrace ?? [];
    if (a !== undefined) setInApp(received, a);
    if (f === undefined) continue;
    const frames = f.map((frame) => (typeof frame === 'number' ? received[frame] : frame));
    if (depth === 0) event.raw_stacktrace = e.stacktrace;
    else e.raw_stacktrace = e.stacktrace;
    e.stacktrace = frames;
  }
  return event;
}

function setInApp(frames: StackFrame[], flags: string): void {
  for (let i = 0; i < frames.length && i < flags.length; i++) {
    const flag = flags[i];
    const inApp = flag === '-' ? undefined : flag === 't';
    if (frames[i].in_app !== inApp && inApp !== undefined) frames[i].in_app = inApp;
  }
}

/** What validation's schema makes of a body (it was valid when stored, so zod accepts it when the compiled path is unsure). */
function bodyFields(raw: unknown): Record<string, unknown> {
  const accepted = acceptEvent?.(raw);
  if (accepted !== undefined && accepted !== UNSURE) return accepted as Record<string, unknown>;
  return errorEventInputSchema.parse(raw) as Record<string, unknown>;
}
