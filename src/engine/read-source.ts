// What a storing exporter offers the read layer: for each signal it stores, a SQL relation over its
// rows in the signal's read layout (src/records/*-row.ts), over the service's DuckDB connections.
// The read layer merges the sources that `service.storage.<signal>` names (read-sources.ts).
import type { Signal } from './item.js';

/** Which day partitions a read needs: every one, or the newest few. */
export type DateSelection = { kind: 'all' } | { kind: 'dates'; dates: string[] };

/** A row as read: column name to value. */
export type Row = Record<string, unknown>;

export interface ReadSource {
  /** The exporter id (`duckdb`, `parquet/archive`). */
  readonly id: string;
  readonly signals: readonly Signal[];
  /**
   * Its rows of the signal, in the signal's read layout: a table name (so the table's indexes serve
   * the query) or a parenthesized query. `projectIds` and `selection` say what the read needs, so a
   * partitioned source can leave the rest out.
   */
  relation(signal: Signal, projectIds: string[], selection: DateSelection): string;
  /**
   * An item may be in its relation twice for a moment (a lake's staging row and its just-flushed
   * file, a compaction's inputs and output): reads de-duplicate it.
   */
  readonly repeats?: boolean;
  /** Its day partitions of one project, newest first, when it is partitioned by day. */
  dates?(signal: Signal, projectId: string): string[];
  /**
   * The document of a row whose `doc` column is '' (kept elsewhere by the source) or a reference
   * into the source's own store (isDocumentRef).
   */
  document?(signal: Signal, row: Row): string | undefined;
  /**
   * Whether document() finds every row it stores by its key alone, so a read by id needs no query
   * (events: dataset, project_id, id).
   */
  readonly keyed?: readonly Signal[];
  /**
   * Grows when rows move between places inside the source (a flush, a compaction): a read that
   * spans such a moment may have missed rows, and is run again.
   */
  generation?(): number;
  /** The issues of the events it stores, as a relation with the columns of an issue, when it keeps them itself. */
  issues?(projectIds: string[]): string;
  /** A replay segment row's events: the gzip-compressed JSON array it stored, or undefined. */
  segment?(row: Row): Promise<Buffer | undefined>;
  /** Resolves once everything it acknowledged is readable. */
  settled?(): Promise<void>;
  /**
   * A source that reads remote files through a local cache: downloads the files the last
   * relation() named and did not have (its read failed to open them); true when it did, and the
   * read should run again.
   */
  fetchMissing?(): Promise<boolean>;
  /**
   * A file the last read could not open as Parquet (an object cut short in the bucket): a source
   * that owns `path` leaves it out of its relations until it changes, and answers true.
   */
  unreadable?(path: string): boolean;
}

/**
 * Whether a row's `doc` column holds a reference into its source's store (the duckdb exporter's
 * span batches) rather than the document itself: JSON documents never start with '@'.
 */
export function isDocumentRef(doc: unknown): doc is string {
  return typeof doc === 'string' && doc.charCodeAt(0) === 64; // '@'
}
