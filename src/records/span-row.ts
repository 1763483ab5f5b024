// How a span is laid out as a row: the columns of the tables that store spans (the duckdb
// exporter's `spans`, the parquet exporter's staging table) and of every read source's relation.
import { timestampValue, type DuckDBAppender, type DuckDBTimestampValue } from '@duckdb/node-api';
import type { Item } from '../engine/item.js';
import { isoMicros } from './event-row.js';
import type { Span } from './span.js';

/** The columns a read source's spans relation has (`doc` as for events: '' where kept elsewhere). */
export const SPAN_READ_COLUMNS = `dataset, project_id, trace_id, span_id, parent_span_id, name, service_name, start_ns, end_ns,
  status, kind, received_at, doc`;

/** What identifies one span across sources, and which of two copies a merged read keeps. */
export const SPAN_ROW_KEY = { key: 'dataset, project_id, trace_id, span_id', order: 'received_at' };

/** The columns of a span row: what its pending entry keeps (the duckdb exporter's spans). */
export type SpanColumns = Pick<
  Span,
  'trace_id' | 'span_id' | 'parent_span_id' | 'name' | 'service_name' | 'start_time_unix_nano' | 'end_time_unix_nano' | 'status' | 'kind' | 'received_at'
>;

/** A span's row columns on their own (what a queue waiting for DuckDB keeps, without the span's attributes). */
export function spanColumns(span: SpanColumns): SpanColumns {
  return {
    trace_id: span.trace_id,
    span_id: span.span_id,
    parent_span_id: span.parent_span_id,
    name: span.name,
    service_name: span.service_name,
    start_time_unix_nano: span.start_time_unix_nano,
    end_time_unix_nano: span.end_time_unix_nano,
    status: span.status,
    kind: span.kind,
    received_at: span.received_at,
  };
}

/** The received_at column's value (one for all the spans of a request). */
export function receivedAtValue(span: Pick<SpanColumns, 'received_at'>): DuckDBTimestampValue {
  return timestampValue(isoMicros(span.received_at));
}

/** Appends the columns of one span (no endRow); `doc` as for appendEventColumns; `receivedAt` its receivedAtValue. */
export function appendSpanColumns(
  appender: DuckDBAppender,
  item: { tenant: Item['tenant']; data: SpanColumns },
  doc: string,
  receivedAt: DuckDBTimestampValue = receivedAtValue(item.data),
): void {
  const { data: span, tenant } = item;
  appender.appendVarchar(tenant.dataset);
  appender.appendVarchar(tenant.projectId);
  appender.appendVarchar(span.trace_id);
  appender.appendVarchar(span.span_id);
  appender.appendVarchar(span.parent_span_id);
  appender.appendVarchar(span.name);
  appender.appendVarchar(span.service_name);
  appender.appendBigInt(span.start_time_unix_nano);
  appender.appendBigInt(span.end_time_unix_nano);
  appender.appendVarchar(span.status);
  appender.appendVarchar(span.kind);
  appender.appendTimestamp(receivedAt);
  appender.appendVarchar(doc);
}
