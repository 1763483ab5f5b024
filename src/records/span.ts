// The canonical span record: what the traces validation produces from /v1/traces JSON and from
// OTLP, what exporters persist, and (reshaped) what GET /v1/traces/{id} returns.

export type SpanStatus = 'unset' | 'ok' | 'error';
export const SPAN_STATUSES: readonly SpanStatus[] = ['unset', 'ok', 'error'];

export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
export const SPAN_KINDS: readonly SpanKind[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/**
 * An attribute value keeps its type: strings, numbers (OTLP int64 beyond 2^53 become decimal
 * strings), booleans, arrays of those, and (from OTLP kvlist values) nested maps.
 */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export interface SpanEvent {
  name: string;
  /** Nanoseconds since the epoch. */
  time_unix_nano: bigint;
  attributes: Attributes;
}

export interface SpanLink {
  trace_id: string;
  span_id: string;
  trace_state?: string;
  attributes: Attributes;
}

export interface InstrumentationScope {
  name: string;
  version?: string;
  attributes?: Attributes;
}

export interface Span {
  /** Lower-case when hex; 1-64 of [0-9A-Za-z_-]. */
  trace_id: string;
  span_id: string;
  /** '' for a root span. */
  parent_span_id: string;
  name: string;
  service_name: string;
  start_time_unix_nano: bigint;
  end_time_unix_nano: bigint;
  status: SpanStatus;
  status_message?: string;
  kind: SpanKind;
  trace_state?: string;
  attributes: Attributes;
  resource_attributes: Attributes;
  scope?: InstrumentationScope;
  events: SpanEvent[];
  links: SpanLink[];
  project_id: string;
  /** ISO 8601 time at which a receiver took the span in. */
  received_at: string;
}

/**
 * What receivers hand to the traces pipeline: the /v1/traces JSON shape. Times are integers in
 * seconds, milliseconds, microseconds or nanoseconds (recognized by magnitude), as numbers,
 * bigints (exact nanoseconds from OTLP or from large JSON integers) or decimal strings.
 */
export interface SpanInput {
  trace_id?: unknown;
  span_id?: unknown;
  parent_span_id?: unknown;
  name?: unknown;
  service_name?: unknown;
  start_time?: unknown;
  end_time?: unknown;
  status?: unknown;
  status_message?: unknown;
  kind?: unknown;
  trace_state?: unknown;
  attributes?: unknown;
  resource_attributes?: unknown;
  scope?: unknown;
  events?: unknown;
  links?: unknown;
  [key: string]: unknown;
}
