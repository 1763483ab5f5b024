// Row layouts shared by the tables that hold events and spans: the duckdb exporter's `events` and
// `spans`, and the parquet exporter's staging tables (the same columns plus a trailing batch_id).
import { timestampValue, type DuckDBAppender } from '@duckdb/node-api';
import type { Item } from '../engine/item.js';
import type { ErrorEvent } from '../records/event.js';
import type { Span } from '../records/span.js';

/**
 * Appends the columns of one event (no endRow, so callers may add trailing columns). `doc` is the
 * stored document; the duckdb exporter passes '' because its documents live in the DocStore.
 */
export function appendEventColumns(appender: DuckDBAppender, item: Pick<Item<ErrorEvent>, 'tenant' | 'data'>, doc: string): void {
  const event = item.data;
  const text = (value: string | undefined) => (value === undefined ? appender.appendNull() : appender.appendVarchar(value));
  if (!event.issue_id) throw new Error(`event ${event.id} has no issue id: put the grouping processor in the pipeline before the exporter`);
  appender.appendVarchar(item.tenant.dataset);
  appender.appendVarchar(item.tenant.projectId);
  appender.appendVarchar(event.id);
  appender.appendTimestamp(timestampValue(isoMicros(event.timestamp)));
  appender.appendTimestamp(timestampValue(isoMicros(event.received_at)));
  appender.appendVarchar(event.issue_id);
  appender.appendVarchar(event.environment);
  appender.appendVarchar(event.release);
  appender.appendVarchar(event.level);
  appender.appendVarchar(event.exception.type);
  appender.appendVarchar(event.exception.value);
  text(event.message);
  text(event.user?.id);
  text(event.user?.email);
  text(event.trace_id);
  text(event.replay_id);
  text(event.tags ? JSON.stringify(event.tags) : undefined);
  appender.appendVarchar(doc);
}

/** The columns of a span row: what its pending entry keeps (the duckdb exporter's spans). */
export type SpanColumns = Pick<Span, 'trace_id' | 'span_id' | 'parent_span_id' | 'name' | 'service_name' | 'start_time_unix_nano' | 'end_time_unix_nano' | 'status' | 'kind' | 'received_at'>;

/** Appends the columns of one span (no endRow); `doc` as for appendEventColumns. */
export function appendSpanColumns(appender: DuckDBAppender, item: { tenant: Item['tenant']; data: SpanColumns }, doc: string): void {
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
  appender.appendTimestamp(timestampValue(isoMicros(span.received_at)));
  appender.appendVarchar(doc);
}

export function isoMicros(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1000n;
}
