import { nanosToMillis } from './nanos.js';
import type { Span } from './span.js';

/**
 * A span as the API returns it (and as it is stored): times in epoch milliseconds, plus the exact
 * nanoseconds as decimal strings (JSON numbers cannot hold them). Built field by field rather
 * than by spreading the span: it runs once per span on the ingest hot path, and copying through a
 * rest pattern was most of its cost (figures: bench/README.md, "Why the code is shaped this way").
 */
export function toSpanDocument(span: Span): Record<string, unknown> {
  const start = span.start_time_unix_nano;
  const end = span.end_time_unix_nano;
  return {
    trace_id: span.trace_id,
    span_id: span.span_id,
    parent_span_id: span.parent_span_id,
    name: span.name,
    service_name: span.service_name,
    status: span.status,
    status_message: span.status_message,
    kind: span.kind,
    trace_state: span.trace_state,
    attributes: span.attributes,
    resource_attributes: span.resource_attributes,
    scope: span.scope,
    links: span.links,
    start_time: nanosToMillis(start),
    end_time: nanosToMillis(end),
    duration_ms: Number(end - start) / 1e6,
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: end.toString(),
    events: span.events.map((event) => ({
      name: event.name,
      attributes: event.attributes,
      time: nanosToMillis(event.time_unix_nano),
      time_unix_nano: event.time_unix_nano.toString(),
    })),
  };
}

/**
 * toSpanDocument as JSON text, the stored form: the same text JSON.stringify(toSpanDocument(span))
 * makes (a test holds them together), written for the span's shape instead of through an
 * intermediate object. It is three pieces: the head, the part a request's spans share (their
 * resource's and scope's JSON, made once for the spans that share those objects) and the tail; the
 * span batch document stores the shared part once (exporters/duckdb/span-batch.ts).
 */
export function spanDocumentJson(span: Span): string {
  return spanDocumentHead(span) + spanSharedPart(span) + spanDocumentTail(span);
}

/** The document up to and including `"resource_attributes":`. */
export function spanDocumentHead(span: Span): string {
  const str = JSON.stringify;
  let out = `{"trace_id":${str(span.trace_id)},"span_id":${str(span.span_id)},"parent_span_id":${str(span.parent_span_id)},"name":${str(span.name)},"service_name":${str(span.service_name)},"status":"${span.status}"`;
  if (span.status_message !== undefined) out += `,"status_message":${str(span.status_message)}`;
  out += `,"kind":"${span.kind}"`;
  if (span.trace_state !== undefined) out += `,"trace_state":${str(span.trace_state)}`;
  return out + `,"attributes":${str(span.attributes)},"resource_attributes":`;
}

let lastShared: { resource: Span['resource_attributes']; scope: Span['scope']; json: string } | undefined;

/**
 * The resource attributes' JSON and, when the span has a scope, `,"scope":` and the scope's JSON:
 * what the spans of one OTLP ScopeSpans share (the decoders and the traces validation hand them
 * the same objects), remembered for the next span with the same two objects.
 */
export function spanSharedPart(span: Span): string {
  const resource = span.resource_attributes;
  const scope = span.scope;
  if (lastShared?.resource !== resource || lastShared.scope !== scope) {
    const json = scope === undefined ? resourceJson(resource) : `${resourceJson(resource)},"scope":${scopeJson(scope)}`;
    lastShared = { resource, scope, json };
  }
  return lastShared.json;
}

/** The document from `,"links":` to its end. */
export function spanDocumentTail(span: Span): string {
  const start = span.start_time_unix_nano;
  const end = span.end_time_unix_nano;
  const str = JSON.stringify;
  let out = `,"links":${span.links.length ? str(span.links) : '[]'},"start_time":${nanosToMillis(start)},"end_time":${nanosToMillis(end)},"duration_ms":${str(Number(end - start) / 1e6)},"start_time_unix_nano":"${start}","end_time_unix_nano":"${end}","events":[`;
  for (let i = 0; i < span.events.length; i++) {
    const event = span.events[i];
    if (i) out += ',';
    out += `{"name":${str(event.name)},"attributes":${str(event.attributes)},"time":${nanosToMillis(event.time_unix_nano)},"time_unix_nano":"${event.time_unix_nano}"}`;
  }
  return out + ']}';
}

let lastResource: { attributes: Span['resource_attributes']; json: string } | undefined;

/** The JSON of a resource's attributes, remembered for the next span of the same resource. */
function resourceJson(attributes: Span['resource_attributes']): string {
  if (lastResource?.attributes !== attributes) lastResource = { attributes, json: JSON.stringify(attributes) };
  return lastResource.json;
}

let lastScope: { scope: NonNullable<Span['scope']>; json: string } | undefined;

/** Likewise for the scope, which the traces validation shares between the spans of one OTLP ScopeSpans. */
function scopeJson(scope: NonNullable<Span['scope']>): string {
  if (lastScope?.scope !== scope) lastScope = { scope, json: JSON.stringify(scope) };
  return lastScope.json;
}
