// The merge of the read sources of one signal (service.storage.<signal>, in order). One source is
// read as it is. Several are read as one relation in which every item appears once: an item can
// sit in two sources (the duckdb exporter and the lake), or inside one in two places for a moment
// (a lake's staging table and a just-flushed file, a compaction's inputs and output). Of two
// copies the first to arrive wins and, between copies of one arrival, the one that carries its
// document (so aggregates over the merge can read titles from it).
import type { Signal } from '../../src/engine/item.js';
import { isDocumentRef, type DateSelection, type ReadSource, type Row } from '../../src/engine/read-source.js';

export interface RowKey {
  /** The columns that identify one item. */
  key: string;
  /** The column by which the first copy is chosen. */
  order: string;
}

/** DuckDB's words for a file that is not Parquet, with its path (the message is bounded: DuckDB's own). */
const NOT_PARQUET = /File '([^']{1,4096})' too small to be a Parquet file|No magic bytes found at end of file '([^']{1,4096})'/;

export class MergedSource {
  constructor(
    readonly signal: Signal,
    readonly sources: readonly ReadSource[],
    private readonly rowKey: RowKey,
  ) {}

  get empty(): boolean {
    return this.sources.length === 0;
  }

  /** The one source, when there is exactly one. */
  get single(): ReadSource | undefined {
    return this.sources.length === 1 ? this.sources[0] : undefined;
  }

  /** Whether any source is partitioned by day (then reads go newest partition first). */
  get partitioned(): boolean {
    return this.sources.some((source) => source.dates !== undefined);
  }

  /** The day partitions of a project across the sources, newest first. */
  dates(projectId: string): string[] {
    const all = new Set(this.sources.flatMap((source) => source.dates?.(this.signal, projectId) ?? []));
    return [...all].sort().reverse();
  }

  /** Maps stored rows to what reads show now (merged issues: src/storage/issue-redirects.ts). */
  remap?: { relation(relation: string, projectIds: string[]): string; document(row: Row, doc: string): string };

  /** A relation over every source for these projects, each item once, as reads show it. */
  relation(projectIds: string[], selection: DateSelection = { kind: 'all' }): string {
    const stored = this.storedRelation(projectIds, selection);
    return this.remap ? this.remap.relation(stored, projectIds) : stored;
  }

  /** A relation over every source for these projects, each item once, as stored. */
  storedRelation(projectIds: string[], selection: DateSelection = { kind: 'all' }): string {
    const only = this.single;
    if (only && !only.repeats) return only.relation(this.signal, projectIds, selection);
    if (this.empty) throw new Error(`no read source stores ${this.signal}`);
    const union = this.sources.map((source) => `SELECT * FROM ${source.relation(this.signal, projectIds, selection)}`).join(' UNION ALL BY NAME ');
    const { key, order } = this.rowKey;
    return `(SELECT * FROM (${union}) QUALIFY row_number() OVER (PARTITION BY ${key} ORDER BY ${order}, doc = '') = 1)`;
  }

  /** A row's document: its own, or its source's where the row was read without one ('' or a reference). */
  document(row: Row): string | undefined {
    const doc = this.storedDocument(row);
    return doc !== undefined && this.remap ? this.remap.document(row, doc) : doc;
  }

  private storedDocument(row: Row): string | undefined {
    if (typeof row.doc === 'string' && row.doc !== '' && !isDocumentRef(row.doc)) return row.doc;
    for (const source of this.sources) {
      const doc = source.document?.(this.signal, row);
      if (doc !== undefined) return doc;
    }
    return undefined;
  }

  /** Resolves once everything acknowledged to any source is readable. */
  async settled(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.settled?.()));
  }

  /**
   * Runs a read that builds its relation inside `read`, again when a source moved rows meanwhile:
   * a partitioned source lists its files before the query's snapshot of its staging rows, so rows
   * moving from one to the other in between would be missed.
   */
  async consistent<T>(read: () => Promise<T>): Promise<T> {
    const moving = this.sources.filter((source) => source.generation !== undefined || source.fetchMissing !== undefined || source.unreadable !== undefined);
    if (moving.length === 0) return read();
    const generation = () => moving.reduce((sum, source) => sum + (source.generation?.() ?? 0), 0);
    for (let attempt = 1; ; attempt++) {
      const before = generation();
      try {
        const result = await read();
        if (generation() === before || attempt >= 5) return result;
      } catch (error) {
        const message = String((error as Error).message);
        if (attempt >= 5) throw error;
        // A listed object that is no Parquet file (cut short in the bucket): left out, the rest read.
        const found = NOT_PARQUET.exec(message);
        const broken = found?.[1] ?? found?.[2];
        if (broken !== undefined && moving.some((source) => source.unreadable?.(broken))) continue;
        // A listed file removed by a compaction before the query opened it, or not in a cache yet.
        if (!/no such file|no files found|cannot open/i.test(message)) throw error;
        await Promise.all(moving.map((source) => source.fetchMissing?.()));
      }
    }
  }
}
