// The document store: each stored event's JSON document, by (dataset, project, event id), in an
// LMDB environment beside the DuckDB file (<data_dir>/docs). DuckDB keeps the columns that
// queries filter and sort on; the multi-kilobyte documents live here because DuckDB is slow at
// both ends for them: committing them (its WAL and checkpoints write every byte again, ~4x fewer
// events per second than rows without them) and fetching them by key (~2.5 ms per document, so
// a 50-event page took 125 ms). LMDB commits a batch of them in well under a millisecond and
// reads one in a few microseconds from its memory map.
//
// It is also where an event becomes durable: the duckdb exporter acknowledges an event once its
// document and a `pending` entry (with the document, what its DuckDB rows are made from) are committed and synced
// in one transaction, and adds the rows in larger batches behind it, deleting the pending
// entries after DuckDB commits. After a crash, the entries still pending are indexed again.
import { join } from 'node:path';
import { open, type Database as LmdbDatabase, type RootDatabase } from 'lmdb';

export type EventKey = [dataset: string, projectId: string, id: string];

export class DocStore {
  private batch: Array<{ entries: Array<{ key: EventKey; doc: string; pending?: string }>; resolve: () => void; reject: (error: unknown) => void }> = [];

  private constructor(
    private readonly root: RootDatabase,
    private readonly events: LmdbDatabase<string, EventKey>,
    private readonly pending: LmdbDatabase<string, EventKey>,
  ) {}

  static open(dataDir: string): DocStore {
    // No compression: lmdb-js compresses synchronous writes on the main thread (LZ4, ~30 us per
    // 4 KB document, more than the commit); the documents take about their JSON size on disk.
    const root = open({ path: join(dataDir, 'docs'), compression: false, overlappingSync: false });
    return new DocStore(
      root,
      root.openDB<string, EventKey>({ name: 'events', encoding: 'string' }),
      root.openDB<string, EventKey>({ name: 'pending', encoding: 'string' }),
    );
  }

  /**
   * Stores the documents (and, with `pending`, the entries their rows are made from); resolves
   * once they are durable. Everything handed in during one turn of the event loop goes into one
   * synchronous, synced LMDB transaction at the end of the turn (setImmediate): an asynchronous
   * write needs two more hops through the event loop, and under load each hop waits behind a
   * whole turn of HTTP work (60 ms per event measured, against < 1 ms for the commit itself).
   */
  putEvents(entries: Array<{ key: EventKey; doc: string; pending?: string }>): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ entries, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.commitBatch());
    });
  }

  private commitBatch(): void {
    const batch = this.batch.splice(0);
    try {
      this.root.transactionSync(() => {
        for (const { entries } of batch) {
          for (const { key, doc, pending } of entries) {
            this.events.putSync(key, doc);
            if (pending !== undefined) this.pending.putSync(key, pending);
          }
        }
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const { resolve } of batch) resolve();
  }

  getEvent(dataset: string, projectId: string, id: string): string | undefined {
    return this.events.get([dataset, projectId, id]);
  }

  hasEvent(dataset: string, projectId: string, id: string): boolean {
    return this.events.doesExist([dataset, projectId, id]);
  }

  /** The pending entry of an event not in DuckDB yet. */
  getPending(key: EventKey): string | undefined {
    return this.pending.get(key);
  }

  /** Every pending entry (after a restart: what the last run acknowledged but did not index). */
  allPending(): Array<{ key: EventKey; value: string }> {
    return [...this.pending.getRange()].map(({ key, value }) => ({ key, value }));
  }

  async removePending(keys: EventKey[]): Promise<void> {
    if (keys.length === 0) return;
    await Promise.all(keys.map((key) => this.pending.remove(key)));
  }

  async removeEvents(keys: EventKey[]): Promise<void> {
    if (keys.length === 0) return;
    await Promise.all(keys.map((key) => this.events.remove(key)));
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
