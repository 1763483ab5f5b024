// The column-batch way of appending event rows, kept here to be measured against the Appender's
// row-by-row calls the duckdb exporter uses (bench/micro/group-commit.ts): each column of up to 2,048
// rows is written into a DuckDB data chunk (@duckdb/node-api's vectors), which the appender takes
// whole. The values and their order are appendEventColumns' (src/records/event-row.ts).
import { DuckDBDataChunk, timestampValue, type DuckDBAppender, type DuckDBValue, type DuckDBVector } from '@duckdb/node-api';
import type { Accepted } from '../../exporters/duckdb/intake.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { isoMicros } from '../../src/records/event-row.js';

type ColumnValue<T> = (row: T) => DuckDBValue | undefined;

const EVENT_ROW: readonly ColumnValue<Accepted<ErrorEvent>>[] = [
  (e) => e.tenant.dataset,
  (e) => e.tenant.projectId,
  (e) => e.data.id,
  (e) => timestampValue(isoMicros(e.data.timestamp)),
  (e) => timestampValue(isoMicros(e.data.received_at)),
  (e) => e.data.grouping_id ?? e.data.issue_id,
  (e) => e.data.environment,
  (e) => e.data.release,
  (e) => e.data.level,
  (e) => e.data.exception.type,
  (e) => e.data.exception.value,
  (e) => e.data.message,
  (e) => e.data.user?.id,
  (e) => e.data.user?.email,
  (e) => e.data.trace_id,
  (e) => e.data.replay_id,
  (e) => (e.data.tags ? JSON.stringify(e.data.tags) : undefined),
  () => '',
];

/** DuckDB's vector size: the most rows a data chunk holds. */
const CHUNK_ROWS = 2048;

/** Appends the events' rows in data chunks (not flushed). */
export function appendEventChunks(appender: DuckDBAppender, events: readonly Accepted<ErrorEvent>[]): void {
  const types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
  if (types.length !== EVENT_ROW.length) throw new Error(`events has ${types.length} columns, the batch ${EVENT_ROW.length}`);
  for (let start = 0; start < events.length; start += CHUNK_ROWS) {
    const count = Math.min(CHUNK_ROWS, events.length - start);
    const chunk = DuckDBDataChunk.create(types, count);
    for (let column = 0; column < EVENT_ROW.length; column++) fillVector(chunk.getColumnVector(column), events, start, count, EVENT_ROW[column]);
    appender.appendDataChunk(chunk);
  }
}

function fillVector<T>(vector: DuckDBVector, rows: readonly T[], start: number, count: number, value: ColumnValue<T>): void {
  for (let i = 0; i < count; i++) vector.setItem(i, value(rows[start + i]) ?? null);
  vector.flush();
}
