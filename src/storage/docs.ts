// The document store: each stored event's JSON document, by (dataset, project, event id), in an
// LMDB environment beside the DuckDB file (<data_dir>/docs). DuckDB keeps the columns that
// queries filter and sort on; the multi-kilobyte documents live here because DuckDB is slow at
// both ends for them: committing them (its WAL and checkpoints write every byte again, ~4x fewer
// events per second than rows without them) and fetching them by key (~2.5 ms per document, so
// a 50-event page took 125 ms). LMDB writes them from its own thread, LZ4-compressed, and reads
// one in a few microseconds from its memory map.
//
// Durability: a put resolves once its transaction is committed and synced (overlappingSync off),
// and the duckdb exporter awaits that before it commits the rows, so a committed row always has
// its document. A crash between the two leaves a document without a row, which the retried
// request overwrites.
import { join } from 'node:path';
import { open, type Database as LmdbDatabase, type RootDatabase } from 'lmdb';

type EventKey = [dataset: string, projectId: string, id: string];

export class DocStore {
  private constructor(
    private readonly root: RootDatabase,
    private readonly events: LmdbDatabase<string, EventKey>,
  ) {}

  static open(dataDir: string): DocStore {
    const root = open({ path: join(dataDir, 'docs'), compression: true, overlappingSync: false });
    return new DocStore(root, root.openDB<string, EventKey>({ name: 'events', encoding: 'string' }));
  }

  /** Stores the documents; resolves once they are durable. */
  async putEvents(entries: Array<{ key: EventKey; doc: string }>): Promise<void> {
    if (entries.length === 0) return;
    const writes = entries.map(({ key, doc }) => this.events.put(key, doc));
    await Promise.all(writes);
    await this.root.flushed;
  }

  getEvent(dataset: string, projectId: string, id: string): string | undefined {
    return this.events.get([dataset, projectId, id]);
  }

  hasEvent(dataset: string, projectId: string, id: string): boolean {
    return this.events.doesExist([dataset, projectId, id]);
  }

  async removeEvents(keys: EventKey[]): Promise<void> {
    if (keys.length === 0) return;
    await Promise.all(keys.map((key) => this.events.remove(key)));
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
