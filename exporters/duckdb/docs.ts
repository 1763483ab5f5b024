// The document store: the JSON document of each stored event and span, in an LMDB environment
// beside the DuckDB file (<data_dir>/docs). Events are keyed (dataset, project, event id); spans
// (dataset, project, minute of the start, trace id, span id, start): see spanKey; replay segments'
// metadata (dataset, project, replay id, segment id), their events being blobs on disk
// (src/storage/segment-blobs.ts). DuckDB keeps the columns that queries filter and sort on; the documents live here because DuckDB is slow at both ends for them: committing them (its
// WAL and checkpoints write every byte again) and fetching them by key (a page of events paid it
// once per event). LMDB commits a batch of them and reads one from its memory map for a small
// fraction of that (figures: bench/README.md, "Why the code is shaped this way").
//
// It is also where items become durable: the duckdb exporter acknowledges a batch of items once
// their documents and one `pending` entry (with the documents, what their DuckDB rows are made
// from) are committed and synced in one transaction, and adds the rows in larger batches behind it,
// deleting the pending entries after DuckDB commits. After a crash, what is still pending is
// indexed again.
import { join } from 'node:path';
import { open, type Database as LmdbDatabase, type RootDatabase } from 'lmdb';
import { makePrivateDir, makePrivateFiles } from '../../extensions/duckdb/private-files.js';
import { checkDocStore } from './docs-check.js';
import { CommitLinger, DEFAULT_LINGER, type LingerPolicy } from './commit-linger.js';

/**
 * Documents are kept per signal; the LMDB databases keep the names they were created with.
 * `traces`: one document per span (the layout before span batches, still read); `span_batches`:
 * one document per accepted batch of spans (span-batch.ts).
 */
export type DocKind = 'events' | 'traces' | 'replays' | 'span_batches';
const LMDB_NAMES: Record<DocKind, string> = { events: 'events', traces: 'spans', replays: 'replay_segments', span_batches: 'span_batches' };
const DOC_KINDS = Object.keys(LMDB_NAMES) as DocKind[];
export type DocKey = Array<string | number>;

/** Spans of one trace that start within the same minute are stored side by side (see spanKey). */
const SPAN_BUCKET_MS = 60_000;

/**
 * A span's key: (dataset, project, minute of its start, trace id, span id, start in epoch ms). The
 * time leads so that new spans land at the end of the B-tree, as event ids (UUIDv7) do: keyed by
 * the random trace id, every insert touched a random page of the memory map, and the process's
 * resident memory grew with the whole store. Within the minute the trace id comes first, so a
 * trace's spans share a leaf page: led by the start in ms, the spans of the traces of one request
 * interleaved with every other request's and each put dirtied a page of its own (far more
 * CPU per span in a synced transaction; bench/README.md has the numbers). The start in ms last
 * is what the first layout had (legacySpanKey), for stores written with it.
 */
export function spanKey(dataset: string, projectId: string, startNs: bigint, traceId: string, spanId: string): DocKey {
  const startMs = Number(startNs / 1_000_000n);
  return [dataset, projectId, Math.floor(startMs / SPAN_BUCKET_MS), traceId, spanId, startMs];
}

/** The key the same span had in the first layout: (dataset, project, start in epoch ms, trace id, span id). */
function legacySpanKey(key: DocKey): DocKey {
  const [dataset, projectId, , traceId, spanId, startMs] = key;
  return [dataset, projectId, startMs, traceId, spanId];
}

const CURRENT_SPAN_LAYOUT = 2;
const LEGACY_SPAN_LAYOUT = 1;

/**
 * Which span key layout the store was written with, recorded when first asked: a store that already
 * holds spans without a record predates spanKey's layout (and may hold both from then on).
 */
function spanLayout(root: RootDatabase, spans: LmdbDatabase<string, DocKey>): number {
  const meta = root.openDB<number, string>({ name: 'meta', encoding: 'json' });
  const recorded = meta.get('span_key_layout');
  if (recorded !== undefined) return recorded;
  const layout = spans.getKeysCount({ limit: 1 }) > 0 ? LEGACY_SPAN_LAYOUT : CURRENT_SPAN_LAYOUT;
  meta.putSync('span_key_layout', layout);
  return layout;
}

/**
 * LMDB keys hold at most 511 bytes. Stored keys are far shorter (validated ids); a longer one asked
 * for (a hostile path such as /v1/events/aaaa…) cannot be stored, so it is simply not found.
 */
const MAX_KEY_BYTES = 400;
function storable(key: DocKey): boolean {
  let bytes = 0;
  for (const part of key) bytes += typeof part === 'string' ? Buffer.byteLength(part) + 1 : 9;
  return bytes <= MAX_KEY_BYTES;
}

interface Entry {
  kind: DocKind;
  key: DocKey;
  /** Bytes are stored as they are (LMDB writes a Buffer unencoded) and read back as text like the rest. */
  doc: string | Buffer;
}

/** One pending entry covers the items of one write (one request's batch), by an id of its own. */
export interface PendingBatch {
  kind: DocKind;
  id: string;
  value: string;
}

export class DocStore {
  private batch: Array<{ entries: Entry[]; pending?: PendingBatch; resolve: () => void; reject: (error: unknown) => void }> = [];
  private readonly linger: CommitLinger;

  private constructor(
    private readonly root: RootDatabase,
    private readonly docs: Record<DocKind, LmdbDatabase<string, DocKey>>,
    private readonly pending: Record<DocKind, LmdbDatabase<string, string>>,
    /** Spans written before spanKey's layout may be stored under legacySpanKey: looked up there too. */
    private readonly legacySpans: boolean,
    linger: LingerPolicy,
  ) {
    this.linger = new CommitLinger(() => this.commitBatch(), linger);
  }

  /** `linger`: when the synced commit runs, see commit-linger.ts. */
  static open(dataDir: string, linger: LingerPolicy = DEFAULT_LINGER): DocStore {
    const dir = join(dataDir, 'docs');
    checkDocStore(
      dir,
      DOC_KINDS.flatMap((kind) => [LMDB_NAMES[kind], `pending_${LMDB_NAMES[kind]}`]),
    );
    makePrivateDir(dir);
    makePrivateFiles(dir, /\.mdb$/);
    // No compression: lmdb-js compresses synchronous writes on the main thread (LZ4), which cost
    // more than the commit itself; the documents take about their JSON size on disk.
    // overlappingSync off: a synchronous transaction then syncs before it returns. With it on,
    // the commit returns at once and is synced later, but nothing reports when a synchronous
    // transaction is on disk, which an acknowledgment needs. The fsync on the main thread is a
    // small share of the main thread's time under load (bench/README.md).
    const root = open({ path: dir, compression: false, overlappingSync: false });
    const db = (name: string) => root.openDB<string, DocKey>({ name, encoding: 'string' });
    const pending = (name: string) => root.openDB<string, string>({ name, encoding: 'string' });
    const docs = {
      events: db(LMDB_NAMES.events),
      traces: db(LMDB_NAMES.traces),
      replays: db(LMDB_NAMES.replays),
      span_batches: db(LMDB_NAMES.span_batches),
    };
    return new DocStore(
      root,
      docs,
      {
        events: pending(`pending_${LMDB_NAMES.events}`),
        traces: pending(`pending_${LMDB_NAMES.traces}`),
        replays: pending(`pending_${LMDB_NAMES.replays}`),
        span_batches: pending(`pending_${LMDB_NAMES.span_batches}`),
      },
      spanLayout(root, docs.traces) === LEGACY_SPAN_LAYOUT,
      linger,
    );
  }

  /**
   * Stores the documents (and, with `pending`, the entry their rows are made from); resolves
   * once they are durable. Everything handed in during one turn of the event loop - and, while
   * requests come close together, during a short linger (commit-linger.ts) - goes into one
   * synchronous, synced LMDB transaction: an asynchronous write needs two more hops through the
   * event loop, and under load each hop waits behind a whole turn of HTTP work, far longer than
   * the commit itself (bench/README.md).
   */
  put(entries: Entry[], pending?: PendingBatch): Promise<void> {
    if (entries.length === 0 && !pending) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ entries, pending, resolve, reject });
      let bytes = 0;
      for (const { doc } of entries) bytes += doc.length;
      this.linger.joined(entries.length, bytes);
    });
  }

  private commitBatch(): void {
    const batch = this.batch.splice(0);
    try {
      this.root.transactionSync(() => {
        for (const { entries, pending } of batch) {
          // lmdb-js writes a Buffer value as its bytes whatever the database's encoding (see Entry).
          for (const { kind, key, doc } of entries) this.docs[kind].putSync(key, doc as string);
          if (pending) this.pending[pending.kind].putSync(pending.id, pending.value);
        }
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const { resolve } of batch) resolve();
  }

  get(kind: DocKind, key: DocKey): string | undefined {
    if (!storable(key)) return undefined;
    const doc = this.docs[kind].get(key);
    return doc === undefined && this.legacy(kind) ? this.docs[kind].get(legacySpanKey(key)) : doc;
  }

  has(kind: DocKind, key: DocKey): boolean {
    return storable(key) && (this.docs[kind].doesExist(key) || (this.legacy(kind) && this.docs[kind].doesExist(legacySpanKey(key))));
  }

  private legacy(kind: DocKind): boolean {
    return kind === 'traces' && this.legacySpans;
  }

  /** Every pending entry (after a restart: what the last run acknowledged but did not index). */
  allPending(kind: DocKind): Array<{ id: string; value: string }> {
    return [...this.pending[kind].getRange()].map(({ key, value }) => ({ id: key, value }));
  }

  async removePending(kind: DocKind, ids: string[]): Promise<void> {
    if (ids.length) await Promise.all(ids.map((id) => this.pending[kind].remove(id)));
  }

  async remove(kind: DocKind, keys: DocKey[]): Promise<void> {
    const all = this.legacy(kind) ? keys.flatMap((key) => [key, legacySpanKey(key)]) : keys;
    if (all.length) await Promise.all(all.map((key) => this.docs[kind].remove(key)));
  }

  /** The keys of a kind's documents from `start` up to (not including) `end`. */
  keys(kind: DocKind, start: DocKey, end: DocKey): DocKey[] {
    return [...this.docs[kind].getKeys({ start, end })];
  }

  /** The id of the last LMDB transaction committed: how many commits the store has had. */
  lastTransactionId(): number {
    return (this.root.getStats() as { lastTxnId: number }).lastTxnId;
  }

  async close(): Promise<void> {
    this.linger.flush();
    await this.root.close();
  }
}
