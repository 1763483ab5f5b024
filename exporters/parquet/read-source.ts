// What the parquet exporter serves reads from: its lake files plus the rows it acknowledged and
// has not flushed yet (its staging tables), as one relation per signal in the read layout, and
// replay segments' events from the blobs under the lake directory, or in the lake's bucket.
import type { Signal } from '../../src/engine/item.js';
import type { DateSelection, ReadSource, Row } from '../../src/engine/read-source.js';
import { fileListSql, LAKE_READ_SQL, listDates, listFiles, type Lake, type LakeSignal } from './lake.js';
import type { LakeTables } from './migrations.js';

/** The staging columns that make a read-layout row (staging rows have no title/culprit columns). */
const STAGING_READ_SQL: Record<LakeSignal, string> = {
  events: `* EXCLUDE (batch_id), json_extract_string(doc, '$.title') AS title, json_extract_string(doc, '$.culprit') AS culprit`,
  traces: '* EXCLUDE (batch_id)',
  replays: '* EXCLUDE (batch_id)',
};

export class LakeReadSource implements ReadSource {
  readonly signals: readonly Signal[] = ['events', 'traces', 'replays'];
  readonly repeats = true;

  constructor(
    readonly id: string,
    private readonly lake: Lake,
    readonly generation: () => number,
    /** A segment row's events (gzip): from the blobs under the lake directory, or the bucket's. */
    private readonly segments: (row: Row) => Promise<Buffer | undefined>,
  ) {}

  relation(signal: Signal, projectIds: string[], selection: DateSelection): string {
    const lakeSignal = asLakeSignal(signal);
    const files = projectIds.flatMap((project) => {
      const dates = selection.kind === 'all' ? listDates(this.lake.path, lakeSignal, project) : selection.dates;
      return dates.flatMap((date) => listFiles(this.lake.path, lakeSignal, project, date));
    });
    return lakeRelation(this.lake.tables, lakeSignal, files);
  }

  dates(signal: Signal, projectId: string): string[] {
    return listDates(this.lake.path, asLakeSignal(signal), projectId);
  }

  /** A segment's events: the gzip blob its row names. */
  segment(row: Row): Promise<Buffer | undefined> {
    return this.segments(row);
  }
}

/** The staging rows and the files' rows of a signal, in the read layout. */
export function lakeRelation(tables: LakeTables, signal: LakeSignal, files: string[]): string {
  const parts = [`SELECT ${STAGING_READ_SQL[signal]} FROM ${tables.staging[signal]}`];
  if (files.length)
    parts.push(`SELECT ${LAKE_READ_SQL[signal]} FROM read_parquet(${fileListSql(files)}, hive_partitioning = true, hive_types = {'project_id': VARCHAR})`);
  return `(${parts.join(' UNION ALL BY NAME ')})`;
}

export function asLakeSignal(signal: Signal): LakeSignal {
  if (signal !== 'events' && signal !== 'traces' && signal !== 'replays') throw new Error(`the parquet exporter does not store ${signal}`);
  return signal;
}
