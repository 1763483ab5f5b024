// How an error event is laid out as a row: the columns every table that stores events has (the
// duckdb exporter's `events`, the parquet exporter's staging tables, with trailing columns of their
// own) and the relation every read source gives the read layer (extensions/query/read-sources.ts).
import { timestampValue, type DuckDBAppender } from '@duckdb/node-api';
import type { Item } from '../engine/item.js';
import type { ErrorEvent } from './event.js';

/**
 * The columns a read source's events relation has. `doc` is the stored document, or '' where the
 * source keeps documents elsewhere (it then looks them up by key, see ReadSource.document).
 */
export const EVENT_READ_COLUMNS = `dataset, project_id, id, timestamp, received_at, issue_id, environment, release, level,
  exception_type, exception_value, message, user_id, user_email, trace_id, replay_id, tags, doc, title, culprit`;

/** What identifies one event across sources, and which of two copies a merged read keeps (the first to arrive). */
export const EVENT_ROW_KEY = { key: 'dataset, project_id, id', order: 'received_at' };

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
  appender.appendVarchar(event.grouping_id ?? event.issue_id); // merges map it at read time
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

export function isoMicros(iso: string): bigint {
  return BigInt(Date.parse(iso)) * 1000n;
}
