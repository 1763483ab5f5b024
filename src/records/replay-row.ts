// How a replay segment is laid out as a row: the columns of the tables that store segments (the
// duckdb exporter's `replay_segments`, the parquet exporter's staging table) and of every read
// source's relation. The events themselves are not a column: they are a compressed blob
// (`blob`: the SHA-256 of their JSON), stored by the exporter (src/storage/segment-blobs.ts).
// List columns (urls, error_ids, trace_ids) are JSON arrays as text.
import { timestampValue, type DuckDBAppender } from '@duckdb/node-api';
import type { Item } from '../engine/item.js';
import { isoMicros } from './event-row.js';
import type { ReplaySegment } from './replay.js';

/** The columns a read source's replays relation has (`doc` as for events: '' where kept elsewhere). */
export const REPLAY_READ_COLUMNS = `dataset, project_id, replay_id, segment_id, started_at, finished_at, received_at, environment, release,
  user_id, user_email, urls, error_ids, trace_ids, event_count, raw_bytes, stored_bytes, has_full_snapshot, blob, doc`;

/** The DuckDB column types, in REPLAY_READ_COLUMNS' order (tables and staging tables alike). */
export const REPLAY_COLUMN_TYPES = `dataset VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  replay_id VARCHAR NOT NULL,
  segment_id INTEGER NOT NULL,
  started_at TIMESTAMP NOT NULL,
  finished_at TIMESTAMP NOT NULL,
  received_at TIMESTAMP NOT NULL,
  environment VARCHAR,
  release VARCHAR,
  user_id VARCHAR,
  user_email VARCHAR,
  urls VARCHAR NOT NULL,
  error_ids VARCHAR NOT NULL,
  trace_ids VARCHAR NOT NULL,
  event_count INTEGER NOT NULL,
  raw_bytes BIGINT NOT NULL,
  stored_bytes BIGINT NOT NULL,
  has_full_snapshot BOOLEAN NOT NULL,
  blob VARCHAR NOT NULL,
  doc VARCHAR NOT NULL`;

/** What identifies one segment across sources, and which of two copies a merged read keeps. */
export const REPLAY_ROW_KEY = { key: 'dataset, project_id, replay_id, segment_id', order: 'received_at' };

/** The record as a row needs it: everything but the events (stored as a blob). */
export type ReplaySegmentColumns = Omit<ReplaySegment, 'events_json'> & { events_json?: string };

/** Appends the columns of one segment (no endRow). The blob must be stored (`blob` set). */
export function appendReplayColumns(appender: DuckDBAppender, item: { tenant: Item['tenant']; data: ReplaySegmentColumns }, doc: string): void {
  const { data: s, tenant } = item;
  const text = (value: string | undefined) => (value === undefined ? appender.appendNull() : appender.appendVarchar(value));
  if (s.blob === undefined) throw new Error(`replay segment ${s.replay_id}/${s.segment_id} has no stored blob`);
  appender.appendVarchar(tenant.dataset);
  appender.appendVarchar(tenant.projectId);
  appender.appendVarchar(s.replay_id);
  appender.appendInteger(s.segment_id);
  appender.appendTimestamp(timestampValue(isoMicros(s.started_at)));
  appender.appendTimestamp(timestampValue(isoMicros(s.finished_at)));
  appender.appendTimestamp(timestampValue(isoMicros(s.received_at)));
  text(s.environment);
  text(s.release);
  text(s.user?.id);
  text(s.user?.email);
  appender.appendVarchar(JSON.stringify(s.urls));
  appender.appendVarchar(JSON.stringify(s.error_ids));
  appender.appendVarchar(JSON.stringify(s.trace_ids));
  appender.appendInteger(s.event_count);
  appender.appendBigInt(BigInt(s.raw_bytes));
  appender.appendBigInt(BigInt(s.stored_bytes ?? 0));
  appender.appendBoolean(s.has_full_snapshot);
  appender.appendVarchar(s.blob);
  appender.appendVarchar(doc);
}
