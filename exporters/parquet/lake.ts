// The Parquet lake's layout and schema (the parquet exporter writes it and serves reads from it):
//
//   <lake>/<signal>/project_id=<id>/date=<YYYY-MM-DD>/part-<unique>.parquet   (hive partitions, ZSTD)
//
// Scalar fields are typed columns (timestamps as Parquet timestamps, numbers as numbers). Event
// tags are a MAP(VARCHAR, VARCHAR) and stack frames a LIST(STRUCT), because they have one fixed
// shape and analysts filter on them. Free-form data (span attributes, whose values mix types;
// contexts, breadcrumbs) is JSON text: a Parquet column has one type, and a struct per distinct
// attribute set would explode the schema. Every row also carries `doc`, the API document, so the
// read endpoints answer from the lake exactly as from DuckDB.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServiceSettings } from '../../src/config/service-schema.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { RemoteLake } from './lake-store.js';
import type { LakeTables } from './migrations.js';

export type LakeSignal = 'events' | 'traces' | 'replays';

/**
 * SELECT list turning staging rows into lake rows (the hive columns project_id and date last, for
 * COPY … PARTITION_BY). Events are dated by their timestamp, spans and replay segments by their start, in UTC.
 */
export const LAKE_ROW_SQL: Record<LakeSignal, string> = {
  events: `
    id, dataset, timestamp, received_at, issue_id, environment, release, level,
    exception_type, exception_value, message,
    json_extract_string(doc, '$.title') AS title,
    json_extract_string(doc, '$.culprit') AS culprit,
    user_id, user_email, trace_id, replay_id,
    json_transform(coalesce(tags, '{}'), '"MAP(VARCHAR, VARCHAR)"') AS tags,
    json_transform(coalesce(json_extract(doc, '$.exception.stacktrace'), '[]'),
      '[{"filename":"VARCHAR","abs_path":"VARCHAR","module":"VARCHAR","function":"VARCHAR","lineno":"INTEGER","colno":"INTEGER","in_app":"BOOLEAN"}]') AS frames,
    doc,
    project_id,
    strftime(timestamp, '%Y-%m-%d') AS date`,
  traces: `
    trace_id, span_id, parent_span_id, name, service_name, dataset,
    make_timestamp(start_ns // 1000) AS start_time,
    start_ns AS start_time_unix_nano,
    end_ns AS end_time_unix_nano,
    (end_ns - start_ns) / 1e6 AS duration_ms,
    status, kind, received_at,
    CAST(json_extract(doc, '$.attributes') AS VARCHAR) AS attributes,
    CAST(json_extract(doc, '$.resource_attributes') AS VARCHAR) AS resource_attributes,
    CAST(json_extract(doc, '$.events') AS VARCHAR) AS events,
    CAST(json_extract(doc, '$.links') AS VARCHAR) AS links,
    doc,
    project_id,
    strftime(make_timestamp(start_ns // 1000), '%Y-%m-%d') AS date`,
  // Replay segments, dated by their start; the events are a blob under <lake>/replay-segments.
  replays: `
    replay_id, segment_id, dataset, started_at, finished_at, received_at, environment, release,
    user_id, user_email,
    from_json(urls, '["VARCHAR"]') AS urls,
    from_json(error_ids, '["VARCHAR"]') AS error_ids,
    from_json(trace_ids, '["VARCHAR"]') AS trace_ids,
    event_count, raw_bytes, stored_bytes, has_full_snapshot, blob, doc,
    project_id,
    strftime(started_at, '%Y-%m-%d') AS date`,
};

/**
 * SELECT list giving lake rows the shape of the DuckDB tables the read queries expect (events:
 * the `events` table plus title/culprit; spans: the `spans` table; replays: `replay_segments`).
 */
export const LAKE_READ_SQL: Record<LakeSignal, string> = {
  events: `dataset, project_id, id, timestamp, received_at, issue_id, environment, release, level,
    exception_type, exception_value, message, user_id, user_email, trace_id, replay_id,
    CAST(to_json(tags) AS VARCHAR) AS tags, doc, title, culprit`,
  traces: `dataset, project_id, trace_id, span_id, parent_span_id, name, service_name,
    start_time_unix_nano AS start_ns, end_time_unix_nano AS end_ns, status, kind, received_at, doc`,
  replays: `dataset, project_id, replay_id, segment_id, started_at, finished_at, received_at, environment, release,
    user_id, user_email, CAST(to_json(urls) AS VARCHAR) AS urls, CAST(to_json(error_ids) AS VARCHAR) AS error_ids,
    CAST(to_json(trace_ids) AS VARCHAR) AS trace_ids, event_count, raw_bytes, stored_bytes, has_full_snapshot, blob, doc`,
};

export function signalDir(lake: string, signal: LakeSignal): string {
  return join(lake, signal);
}

export function partitionDir(lake: string, signal: LakeSignal, projectId: string, date: string): string {
  return join(lake, signal, `project_id=${projectId}`, `date=${date}`);
}

/** The date partitions of one project, newest first. */
export function listDates(lake: string, signal: LakeSignal, projectId: string): string[] {
  const dir = join(lake, signal, `project_id=${projectId}`);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^date=\d{4}-\d{2}-\d{2}$/.test(name))
    .map((name) => name.slice(5))
    .sort()
    .reverse();
}

/** The finished Parquet files of one partition (files being written are dot-prefixed and skipped). */
export function listFiles(lake: string, signal: LakeSignal, projectId: string, date: string): string[] {
  const dir = partitionDir(lake, signal, projectId, date);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.parquet') && !name.startsWith('.'))
    .sort()
    .map((name) => join(dir, name));
}

/** Every project that has a partition of the signal. */
export function listProjects(lake: string, signal: LakeSignal): string[] {
  const dir = signalDir(lake, signal);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith('project_id='))
    .map((name) => name.slice('project_id='.length));
}

/** Deletes every day partition of the signal dated before `firstKept` (YYYY-MM-DD); returns their directories. */
export function dropPartitionsBefore(lake: string, signal: LakeSignal, firstKept: string): string[] {
  const dropped: string[] = [];
  for (const project of listProjects(lake, signal)) {
    for (const date of listDates(lake, signal, project).filter((d) => d < firstKept)) {
      const dir = partitionDir(lake, signal, project, date);
      rmSync(dir, { recursive: true, force: true });
      dropped.push(dir);
    }
  }
  return dropped;
}

/** A DuckDB list literal of file paths, for read_parquet([...]). Paths are ours, but quote anyway. */
export function fileListSql(files: string[]): string {
  return `[${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}]`;
}

/** An instance's lake directory: its `path`, else <data_dir>/lake; relative to data_dir. */
export function lakePath(config: { path?: string }, settings: Pick<ServiceSettings, 'data_dir'>): string {
  return resolve(settings.data_dir, config.path ?? 'lake');
}

/** One lake as the exporter's modules work on it: its directory and its tables in the DuckDB file. */
export interface Lake {
  db: Database;
  /** The lake directory (absolute). */
  path: string;
  tables: LakeTables;
  /**
   * '' for a lake this instance alone writes; on a lake several workers share (`writer_id`), the
   * writer's id, in the name of every file and temporary directory it makes: flushes, recovery and
   * compaction then touch only its own files.
   */
  writer: string;
  /**
   * Called when rows leave staging for files, or files are removed (compaction): a read that
   * listed files before and read staging after such a moment may have missed rows, and retries.
   */
  changed(): void;
  /**
   * The object store the lake lives in (parquet `s3`), when not only this directory: every file
   * published here is published there before its flush or compaction is journaled done, and every
   * file removed here is removed there.
   */
  remote?: RemoteLake;
}
