// Where reads come from, per signal: the DuckDB tables the duckdb exporter writes, the Parquet lake
// (its files plus the rows the parquet exporter acknowledged but has not flushed yet), or both.
// Each source is a SQL relation with the columns of the DuckDB table. Whenever the lake takes
// part, rows are de-duplicated by their key, so an item is never returned twice: it can sit in the
// events table and the lake, in staging and a just-flushed file, or in a compaction's input and
// output for a moment.
import type { ReadSource } from '../config/service-schema.js';
import { fileListSql, LAKE_READ_SQL, lakeGeneration, listDates, listFiles, STAGING_TABLE, type LakeSignal } from './lake.js';

const EVENT_COLUMNS = `dataset, project_id, id, timestamp, received_at, issue_id, environment, release, level,
  exception_type, exception_value, message, user_id, user_email, trace_id, replay_id, tags, doc,
  json_extract_string(NULLIF(doc, ''), '$.title') AS title, json_extract_string(NULLIF(doc, ''), '$.culprit') AS culprit`;
const SPAN_COLUMNS = `dataset, project_id, trace_id, span_id, parent_span_id, name, service_name, start_ns, end_ns,
  status, kind, received_at, doc`;

const TABLE: Record<LakeSignal, { table: string; columns: string; key: string; order: string }> = {
  events: { table: 'events', columns: EVENT_COLUMNS, key: 'dataset, project_id, id', order: 'received_at' },
  traces: { table: 'spans', columns: SPAN_COLUMNS, key: 'dataset, project_id, trace_id, span_id', order: 'received_at' },
};

/** Which lake partitions a query needs: every date, or the newest few. */
export type DateSelection = { kind: 'all' } | { kind: 'dates'; dates: string[] };

export class ReadSources {
  constructor(
    private readonly lakePath: string,
    private readonly sources: Record<LakeSignal, ReadSource>,
  ) {}

  source(signal: LakeSignal): ReadSource {
    return this.sources[signal];
  }

  usesLake(signal: LakeSignal): boolean {
    return this.sources[signal] !== 'duckdb';
  }

  /** The lake's date partitions of a project, newest first (empty when the lake is not read). */
  dates(signal: LakeSignal, projectId: string): string[] {
    return this.usesLake(signal) ? listDates(this.lakePath, signal, projectId) : [];
  }

  /**
   * Runs a read that builds its relation inside `read`, again when the lake changed meanwhile (a
   * flush finished or a compaction removed files): the file list is taken before the query's
   * snapshot of staging, so rows moving from one to the other in between would be missed.
   */
  async consistent<T>(signal: LakeSignal, read: () => Promise<T>): Promise<T> {
    if (!this.usesLake(signal)) return read();
    for (let attempt = 1; ; attempt++) {
      const before = lakeGeneration();
      try {
        const result = await read();
        if (lakeGeneration() === before || attempt >= 5) return result;
      } catch (error) {
        // A listed file removed by a compaction before the query opened it.
        if (attempt >= 5 || !/no such file|no files found|cannot open/i.test(String((error as Error).message))) throw error;
      }
    }
  }

  /** A parenthesized relation over the configured source(s) for these projects. */
  relation(signal: LakeSignal, projectIds: string[], selection: DateSelection = { kind: 'all' }): string {
    const { table, columns, key, order } = TABLE[signal];
    const source = this.sources[signal];
    if (source === 'duckdb') return table; // the table itself, so its indexes serve the query
    const parts: string[] = [];
    if (source === 'both') parts.push(`SELECT ${columns} FROM ${table}`);
    parts.push(`SELECT ${columns} FROM ${STAGING_TABLE[signal]}`);
    const files = projectIds.flatMap((project) => {
      const dates = selection.kind === 'all' ? listDates(this.lakePath, signal, project) : selection.dates;
      return dates.flatMap((date) => listFiles(this.lakePath, signal, project, date));
    });
    if (files.length) parts.push(`SELECT ${LAKE_READ_SQL[signal]} FROM read_parquet(${fileListSql(files)}, hive_partitioning = true, hive_types = {'project_id': VARCHAR})`);
    const union = parts.join(' UNION ALL BY NAME ');
    // Of two copies, the one that carries its document (the duckdb exporter's rows keep theirs in
    // the DocStore) wins, so lake aggregates can read titles from it.
    return `(SELECT * FROM (${union}) QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY ${order}, doc = '') = 1)`;
  }
}
