// Sentry transactions and spans as the spans POST /v1/traces takes: the transaction is the root
// (its `contexts.trace`), each of its `spans` a child, with trace, span and parent ids, `op`,
// `description`, status, exact nanosecond times from Sentry's float seconds, and tags and data
// as attributes.
import type { SpanInput } from '../../../src/records/span.js';
import { isJsonObject, type JsonObject } from './envelope.js';
import { sentryTime } from './time.js';

export type MappedSpans = { ok: true; spans: SpanInput[] } | { ok: false; reason: string };

/** A transaction event: its root span and child spans. */
export function mapTransaction(payload: JsonObject): MappedSpans {
  const contexts = isJsonObject(payload.contexts) ? payload.contexts : {};
  const trace = isJsonObject(contexts.trace) ? contexts.trace : undefined;
  if (!trace || typeof trace.trace_id !== 'string' || typeof trace.span_id !== 'string')
    return { ok: false, reason: 'the transaction has no contexts.trace with trace_id and span_id' };
  const common = commonAttributes(payload);
  const service = serviceName(payload, trace);
  const root = mapSpan(
    {
      ...trace,
      description: payload.transaction,
      start_timestamp: payload.start_timestamp,
      timestamp: payload.timestamp,
      tags: payload.tags,
      data: { ...(isJsonObject(trace.data) ? trace.data : {}), ...measurements(payload.measurements) },
    },
    trace.trace_id,
    service,
    common,
  );
  if (!root.ok) return root;
  const spans: SpanInput[] = [root.span];
  if (Array.isArray(payload.spans)) {
    for (const child of payload.spans) {
      if (!isJsonObject(child)) continue;
      const mapped = mapSpan(child, trace.trace_id, service, common);
      // A child span that cannot be read is handed on as it is: validation rejects it with the
      // reason, and the others are kept (partial success).
      spans.push(mapped.ok ? mapped.span : (child as SpanInput));
    }
  }
  return { ok: true, spans };
}

/**
 * A `span` item: span streaming's `{version: 2, items: [...]}` (what @sentry/node 10+ sends instead
 * of transactions, with `{value, type}` attributes), or one standalone span (browser web vitals).
 */
export function mapStandaloneSpan(payload: JsonObject): MappedSpans {
  if (Array.isArray(payload.items)) {
    const spans: SpanInput[] = [];
    for (const item of payload.items) {
      if (!isJsonObject(item)) continue;
      const mapped = mapStreamedSpan(item);
      spans.push(mapped.ok ? mapped.span : (item as SpanInput));
    }
    return spans.length ? { ok: true, spans } : { ok: false, reason: 'the span container has no spans' };
  }
  if (typeof payload.trace_id !== 'string') return { ok: false, reason: 'the span has no trace_id' };
  const result = mapSpan(payload, payload.trace_id, serviceName(payload, payload), commonAttributes(payload));
  return result.ok ? { ok: true, spans: [result.span] } : result;
}

function mapSpan(span: JsonObject, traceId: string, service: string, common: JsonObject): { ok: true; span: SpanInput } | { ok: false; reason: string } {
  const start = sentryTime(span.start_timestamp);
  const end = sentryTime(span.timestamp ?? span.start_timestamp);
  if (!start || !end) return { ok: false, reason: 'the span needs start_timestamp and timestamp (seconds since the epoch)' };
  const op = typeof span.op === 'string' ? span.op : undefined;
  const description = typeof span.description === 'string' && span.description !== '' ? span.description : undefined;
  const attributes: JsonObject = { ...common };
  if (isJsonObject(span.tags)) Object.assign(attributes, scalarValues(span.tags));
  if (isJsonObject(span.data)) Object.assign(attributes, span.data);
  if (op) attributes['sentry.op'] = op;
  if (description) attributes['sentry.description'] = description;
  if (typeof span.origin === 'string') attributes['sentry.origin'] = span.origin;
  const status = typeof span.status === 'string' ? span.status : undefined;
  return {
    ok: true,
    span: {
      trace_id: typeof span.trace_id === 'string' ? span.trace_id : traceId,
      span_id: span.span_id,
      parent_span_id: typeof span.parent_span_id === 'string' ? span.parent_span_id : '',
      name: description ?? op ?? 'span',
      service_name: service,
      start_time: start.nanos,
      end_time: end.nanos,
      status: status === undefined || status === 'unknown' || status === 'unset' ? 'unset' : status === 'ok' ? 'ok' : 'error',
      ...(status !== undefined && status !== 'ok' && status !== 'unknown' && status !== 'unset' && { status_message: status }),
      kind: kindOf(op),
      attributes,
    },
  };
}

/** A span of span streaming (v2): `name`, `end_timestamp`, typed attributes. */
function mapStreamedSpan(span: JsonObject): { ok: true; span: SpanInput } | { ok: false; reason: string } {
  if (typeof span.trace_id !== 'string') return { ok: false, reason: 'the span has no trace_id' };
  const attributes: JsonObject = {};
  if (isJsonObject(span.attributes)) {
    for (const [key, value] of Object.entries(span.attributes)) attributes[key] = isJsonObject(value) && 'value' in value ? value.value : value;
  }
  const str = (key: string) => (typeof attributes[key] === 'string' ? (attributes[key] as string) : undefined);
  const release = str('sentry.release');
  const service = str('service.name') ?? (release?.includes('@') ? release.slice(0, release.lastIndexOf('@')) : undefined) ?? 'unknown_service';
  const op = str('sentry.op');
  const mapped = mapSpan(
    { ...span, op, description: typeof span.name === 'string' ? span.name : undefined, timestamp: span.end_timestamp, tags: undefined, data: attributes },
    span.trace_id,
    service,
    {},
  );
  return mapped;
}

function kindOf(op: string | undefined): string {
  if (!op) return 'unspecified';
  if (op === 'http.server' || op.endsWith('.server')) return 'server';
  if (op === 'http.client' || op.endsWith('.client') || op.startsWith('db')) return 'client';
  if (op.startsWith('queue.publish')) return 'producer';
  if (op.startsWith('queue.process')) return 'consumer';
  return 'internal';
}

/** What every span of the payload carries: its release, environment, SDK and platform. */
function commonAttributes(payload: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [field, attribute] of [
    ['release', 'sentry.release'],
    ['environment', 'sentry.environment'],
    ['platform', 'sentry.platform'],
  ] as const) {
    if (typeof payload[field] === 'string') out[attribute] = payload[field];
  }
  if (isJsonObject(payload.sdk) && typeof payload.sdk.name === 'string') out['sentry.sdk.name'] = payload.sdk.name;
  return out;
}

/** `service.name` in the trace data or tags, else the app of an `app@version` release, else the platform. */
function serviceName(payload: JsonObject, trace: JsonObject): string {
  const data = isJsonObject(trace.data) ? trace.data : {};
  const tags = isJsonObject(payload.tags) ? payload.tags : {};
  for (const candidate of [data['service.name'], tags['service.name'], payload.server_name]) if (typeof candidate === 'string' && candidate) return candidate;
  if (typeof payload.release === 'string' && payload.release.includes('@')) return payload.release.slice(0, payload.release.lastIndexOf('@'));
  return typeof payload.platform === 'string' ? payload.platform : 'unknown_service';
}

function scalarValues(record: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) if (['string', 'number', 'boolean'].includes(typeof value)) out[key] = value;
  return out;
}

/** `measurements: {lcp: {value, unit}}` as `measurements.lcp` attributes. */
function measurements(value: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isJsonObject(value)) return out;
  for (const [name, measurement] of Object.entries(value)) {
    if (isJsonObject(measurement) && typeof measurement.value === 'number') out[`measurements.${name}`] = measurement.value;
  }
  return out;
}
