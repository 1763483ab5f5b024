// Span events named `exception` (OpenTelemetry semantic conventions) -> error event bodies, in the
// shape POST /v1/events accepts (errorEventInputSchema), so that they go through the same
// validation and grouping as events sent directly.
//
// Decisions:
// - `id` is a UUIDv8 (RFC 9562) made of the first 128 bits of SHA-256 over (trace_id, span_id,
//   index of the event in span.events, event time in nanoseconds): a span delivered twice (OTLP
//   retries, at-least-once export) gives the same ids, which the events exporter skips.
// - `level` is always 'error'. `exception.escaped` only says the exception left the span's scope
//   (and the attribute is deprecated in recent semantic conventions), not that the process died;
//   it is kept in `contexts.exception.escaped` when sent.
// - No `message`: the exception's type and value carry it; the span name is a tag.
// - `platform` is `telemetry.sdk.language`, with OpenTelemetry's `nodejs` / `webjs` mapped to
//   Faultline's `node` / `javascript`; the language also picks the stack trace format to try first.
// - `release` is `<service>@<service.version>`, `<service>` alone without a version, `unknown@<v>`
//   with a version but no service, `unknown` with neither. The service is the span's
//   service_name unless it is the validator's `unknown_service` placeholder, else the resource's
//   `service.name`.
// - Tags are few and stringified: service.name, span.name, span.kind and, when the span has them,
//   http.route, http.request.method and http.response.status_code (falling back to the older
//   http.method / http.status_code attributes).
import { createHash } from 'node:crypto';
import type { Span, SpanEvent } from '../../src/records/span.js';
import { attributeText, firstText, serviceOf, spanScope } from '../../src/records/span-scope.js';
import { parseJavaCauses, parseStacktrace } from './stacktrace-text.js';

export const EXCEPTION_EVENT_NAME = 'exception';

const PLATFORMS: Record<string, string> = { nodejs: 'node', webjs: 'javascript' };

/** Span attributes copied to tags, each with older semantic-convention names to fall back on. */
const TAG_ATTRIBUTES: [string, ...string[]][] = [['http.route'], ['http.request.method', 'http.method'], ['http.response.status_code', 'http.status_code']];

/** Years 0000-9999: what an ISO 8601 timestamp with a 4-digit year can say. */
const MAX_ISO_MS = 253_402_300_799_999;
const NS_PER_MS = 1_000_000n;

/** A deterministic UUIDv8 (lower case, dashed) from the SHA-256 of the parts. */
export function deterministicUuid(...parts: string[]): string {
  const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x80; // version 8
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // variant 10xx (RFC 9562)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The id of the error event made from span.events[index]. */
export function spanExceptionEventId(span: Pick<Span, 'trace_id' | 'span_id'>, index: number, event: Pick<SpanEvent, 'time_unix_nano'>): string {
  return deterministicUuid('faultline:span-exception:v1', span.trace_id, span.span_id, String(index), event.time_unix_nano.toString());
}

/** ISO 8601 (UTC, milliseconds; sub-millisecond digits cut) of epoch nanoseconds, if representable. */
export function isoFromNanos(nanos: bigint): string | undefined {
  if (nanos <= 0n) return undefined;
  const ms = nanos / NS_PER_MS;
  if (ms > BigInt(MAX_ISO_MS)) return undefined;
  return new Date(Number(ms)).toISOString();
}

/**
 * One raw error event body (POST /v1/events shape) per span event named `exception`, in span
 * event order. Spans without exception events give [].
 */
export function exceptionEventsFromSpan(span: Span): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const resource = span.resource_attributes ?? {};
  const attributes = span.attributes ?? {};
  const service = serviceOf(span, resource);
  const language = attributeText(resource['telemetry.sdk.language']);
  span.events.forEach((event, index) => {
    if (event.name !== EXCEPTION_EVENT_NAME) return;
    const eventAttributes = event.attributes ?? {};

    const stacktraceText = eventAttributes['exception.stacktrace'];
    const frames = typeof stacktraceText === 'string' && stacktraceText.trim() !== '' ? parseStacktrace(stacktraceText, language) : [];
    const message = eventAttributes['exception.message'];
    const exception: Record<string, unknown> = {
      type: attributeText(eventAttributes['exception.type']) ?? 'Error',
      value: typeof message === 'string' ? message : (attributeText(message) ?? ''),
    };
    if (frames.length > 0) exception.stacktrace = frames;
    // A Java trace's `Caused by:` sections become the exception's cause chain (grouping tells wrappers of different causes apart).
    if (typeof stacktraceText === 'string' && frames.some((frame) => frame.platform === 'java')) {
      let enclosing = exception;
      for (const { type, value, stacktrace } of parseJavaCauses(stacktraceText)) {
        const cause: Record<string, unknown> = { type, value };
        if (stacktrace.length > 0) cause.stacktrace = stacktrace;
        enclosing.cause = cause;
        enclosing = cause;
      }
    }

    const timestamp =
      isoFromNanos(event.time_unix_nano) ?? isoFromNanos(span.end_time_unix_nano) ?? isoFromNanos(span.start_time_unix_nano) ?? span.received_at;

    const tags: Record<string, string> = {};
    if (service !== undefined) tags['service.name'] = service;
    if (span.name) tags['span.name'] = span.name;
    tags['span.kind'] = span.kind;
    for (const [key, ...fallbacks] of TAG_ATTRIBUTES) {
      const value = firstText(attributes, [key, ...fallbacks]);
      if (value !== undefined) tags[key] = value;
    }

    const trace: Record<string, unknown> = { trace_id: span.trace_id, span_id: span.span_id };
    if (span.parent_span_id) trace.parent_span_id = span.parent_span_id;
    trace.status = span.status;
    const contexts: Record<string, Record<string, unknown>> = { trace };
    const escaped = eventAttributes['exception.escaped'];
    if (typeof escaped === 'boolean') contexts.exception = { escaped };
    else if (escaped === 'true' || escaped === 'false') contexts.exception = { escaped: escaped === 'true' };

    const body: Record<string, unknown> = {
      id: spanExceptionEventId(span, index, event),
      timestamp,
      ...spanScope(span),
      level: 'error',
    };
    if (language !== undefined) body.platform = PLATFORMS[language.toLowerCase()] ?? language;
    body.exception = exception;
    body.trace_id = span.trace_id;
    body.tags = tags;
    body.contexts = contexts;

    const sdkName = attributeText(resource['telemetry.sdk.name']);
    const sdkVersion = attributeText(resource['telemetry.sdk.version']);
    if (sdkName !== undefined || sdkVersion !== undefined) {
      const sdk: Record<string, string> = {};
      if (sdkName !== undefined) sdk.name = sdkName;
      if (sdkVersion !== undefined) sdk.version = sdkVersion;
      body.sdk = sdk;
    }
    out.push(body);
  });
  return out;
}
