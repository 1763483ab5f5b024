// What both OTLP decoders (protobuf.ts, json.ts) produce, and the pieces they share to build it:
// one SpanInput (src/records/span.ts) per OTLP span, grouped by the resource it came with.
// The traces validation then checks each SpanInput like a span of POST /v1/traces.
import type { FieldError } from '../../engine/item.js';
import type { AttributeValue, Attributes, InstrumentationScope, SpanInput, SpanKind, SpanStatus } from '../../records/span.js';

export interface DecodedResourceSpans {
  /** The resource's attributes; the same object is each of its spans' resource_attributes. */
  resource: Attributes;
  /** The spans of every ScopeSpans of the resource, in order. */
  spans: SpanInput[];
}

export interface DecodedTraceRequest {
  resourceSpans: DecodedResourceSpans[];
}

/** How many spans a decoded request holds (for ExportTracePartialSuccess.rejected_spans). */
export function countSpans(request: DecodedTraceRequest): number {
  let count = 0;
  for (const resourceSpans of request.resourceSpans) count += resourceSpans.spans.length;
  return count;
}

// --- enums -------------------------------------------------------------------------------------

/** Span.SpanKind by number; values outside 0..5 read as 'unspecified'. */
const KINDS: readonly SpanKind[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
/** Status.StatusCode by number; values outside 0..2 read as 'unset'. */
const STATUSES: readonly SpanStatus[] = ['unset', 'ok', 'error'];

export const SPAN_KIND_NAMES: Readonly<Record<string, number>> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
export const STATUS_CODE_NAMES: Readonly<Record<string, number>> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };

function spanKind(value: number): SpanKind {
  return KINDS[value] ?? 'unspecified';
}

function spanStatus(value: number): SpanStatus {
  return STATUSES[value] ?? 'unset';
}

// --- values ------------------------------------------------------------------------------------

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An int64 attribute value: a number while exact (|v| <= 2^53-1), else its decimal string. */
export function int64Attribute(value: bigint): number | string {
  return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value.toString();
}

/**
 * A double attribute value. NaN and the infinities become the strings 'NaN', 'Infinity' and
 * '-Infinity' (their OTLP/JSON spelling): the span record is stored as JSON, which has no such
 * numbers, and the traces validation would reject the whole span for a non-finite number.
 */
export function doubleAttribute(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/** Sets out[key] = value, also for the key "__proto__" (which plain assignment would swallow). */
export function setAttribute(out: Record<string, AttributeValue>, key: string, value: AttributeValue): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

// --- records -----------------------------------------------------------------------------------

/** What every span of one ResourceSpans shares. */
export interface ResourceContext {
  attributes: Attributes;
  serviceName: string;
}

export function resourceContext(attributes: Attributes): ResourceContext {
  const name = attributes['service.name'];
  // The OTel resource semantic conventions: a missing service.name means 'unknown_service'.
  return { attributes, serviceName: typeof name === 'string' && name !== '' ? name : 'unknown_service' };
}

export function scopeRecord(name: string, version: string, attributes: Attributes | undefined): InstrumentationScope {
  const scope: InstrumentationScope = { name };
  if (version) scope.version = version;
  if (attributes && hasKeys(attributes)) scope.attributes = attributes;
  return scope;
}

export interface SpanEventInput {
  name: string;
  /** Nanoseconds since the epoch. */
  time: bigint;
  attributes: Attributes;
}

export interface SpanLinkInput {
  trace_id: string;
  span_id: string;
  trace_state?: string;
  attributes: Attributes;
}

export function linkRecord(traceId: string, spanId: string, traceState: string, attributes: Attributes): SpanLinkInput {
  const link: SpanLinkInput = { trace_id: traceId, span_id: spanId, attributes };
  if (traceState) link.trace_state = traceState;
  return link;
}

// --- ids ---------------------------------------------------------------------------------------

const ALL_ZERO = /^0+$/;

/** What an OTLP id of `bytes` bytes (as lower-case hex) is wrong in, or undefined when it is valid. */
function idProblem(hex: string, bytes: number, what: string): string | undefined {
  if (hex === '') return `is required (a ${what} is ${bytes} bytes)`;
  if (hex.length !== bytes * 2) return `must be ${bytes} bytes, got ${hex.length / 2}`;
  if (ALL_ZERO.test(hex)) return `must not be all zeros (an invalid ${what} in OTLP)`;
  return undefined;
}

/**
 * The OTLP specification's rules for a span's ids, which the /v1/traces ids (1-64 characters)
 * do not have: a trace id is 16 bytes and a span id 8 bytes, neither all zeros. A parent span id
 * is empty for a root span (the decoders read an all-zero one as empty too, as the SDKs mean it),
 * else a valid span id. The receiver rejects a span with any of these problems, per span.
 */
export function otlpIdErrors(span: SpanInput): FieldError[] {
  const trace = idProblem(textOf(span.trace_id), 16, 'trace id');
  const own = idProblem(textOf(span.span_id), 8, 'span id');
  const parent = span.parent_span_id === '' ? undefined : idProblem(textOf(span.parent_span_id), 8, 'span id');
  if (trace === undefined && own === undefined && parent === undefined) return NO_ERRORS; // nearly every span: nothing made for it
  const errors: FieldError[] = [];
  if (trace) errors.push({ path: 'trace_id', message: trace });
  if (own) errors.push({ path: 'span_id', message: own });
  if (parent) errors.push({ path: 'parent_span_id', message: parent });
  return errors;
}

const NO_ERRORS: FieldError[] = [];
Object.freeze(NO_ERRORS);

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** One SpanInput, built the same way by both decoders (so that their outputs compare equal). */
export function spanRecord(
  traceId: string,
  spanId: string,
  parentSpanId: string,
  traceState: string,
  name: string,
  kind: number,
  start: bigint,
  end: bigint,
  attributes: Attributes,
  events: SpanEventInput[],
  links: SpanLinkInput[],
  statusCode: number,
  statusMessage: string,
  resource: ResourceContext,
  scope: InstrumentationScope | undefined,
): SpanInput {
  const span: SpanInput = {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: ALL_ZERO.test(parentSpanId) ? '' : parentSpanId, // all zeros: no parent (a root span)
    name,
    service_name: resource.serviceName,
    start_time: start,
    end_time: end,
    status: spanStatus(statusCode),
    kind: spanKind(kind),
    attributes,
    resource_attributes: resource.attributes,
    events,
    links,
  };
  if (statusMessage) span.status_message = statusMessage;
  if (traceState) span.trace_state = traceState;
  if (scope) span.scope = scope;
  return span;
}

function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}
