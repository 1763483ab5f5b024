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

/** toSpanDocument as JSON text: the stored form. */
export function spanDocumentJson(span: Span): string {
  return JSON.stringify(toSpanDocument(span));
}
