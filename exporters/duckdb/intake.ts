// The duckdb exporter's write path, for events and spans alike. A batch of items is acknowledged
// once their documents and one pending entry listing them are durable in the DocStore (one synced
// LMDB commit per turn of the event loop, or per linger: commit-linger.ts); DuckDB gets the rows behind that, in batches as large
// as the backlog, from one indexing loop. Acknowledging after the DuckDB commit made every request
// wait for a whole DuckDB commit cycle (and a span batch for several; figures: bench/README.md).
//
// Duplicates: documents and their pending entry commit together, and the pending entry goes only
// after the rows are in DuckDB, so a key with a document is stored; one being stored by a request
// still in flight waits for it. Fresh keys - nearly all - cost one LMDB lookup and no query.
//
// Reads wait for the backlog first (the read source's settled()): nothing acknowledged is ever
// invisible.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from 'pino';
import type { Item, Tenant } from '../../src/engine/item.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { DocKey, DocKind, DocStore } from './docs.js';

const RETRY_MS = 1000;
/**
 * How long acknowledged items may wait for more before they are indexed (reads do not wait for
 * it: they start indexing at once). A DuckDB commit costs about the same for a few rows as for a
 * large batch, so batching saves most of its work and of the main thread's time around it. The
 * wait is a second so that a moderate rate fills a batch too: at a few hundred events a second, a
 * shorter one left each transaction a few dozen rows, and its fixed cost weighed on every event
 * (bench/micro/group-commit.ts, "Index transactions"). Items are durable meanwhile, and the backlog
 * bounds hold.
 */
const LINGER_MS = 1000;
const LINGER_ROWS = 1000;

/** An item made durable, on its way to DuckDB. */
export interface Accepted<T> {
  tenant: Tenant;
  data: T;
}

/** What differs between events and spans. */
export interface IntakeKind<T> {
  kind: DocKind;
  key(tenant: Tenant, data: T): DocKey;
  /** Throws for an item that cannot be stored (before anything is written). */
  check?(data: T): void;
  /** The stored value: a document's JSON, or bytes of a layout of the kind's own (events: src/records/event-body.ts). */
  document(data: T): string | Buffer;
  /** The document JSON of a stored value, for a kind whose stored value is not always that JSON. */
  json?(stored: string): string;
  /** What the document lacks to rebuild the item after a restart (kept in the pending entry). */
  pending(data: T): unknown;
  /** The item rebuilt from its document (and, after a restart, the pending entry's `extra`). */
  fromDocument(doc: string, extra?: unknown): T;
  /**
   * What indexing needs of a durable item (its row's columns); the rest is in its document. The
   * queue holds this, so a backlog of large events does not hold their breadcrumbs and frames.
   */
  slim(data: T): T;
  /** A repeated item: learns what its acknowledgment needs from the one stored first. */
  duplicate?(data: T, original: () => T): void;
  /** Adds rows in one transaction that it begins and commits; `recheck`: skip keys DuckDB has. */
  index(connection: DuckDBConnection, batch: Accepted<T>[], recheck: boolean): Promise<void>;
}

interface Queued<T> extends Accepted<T> {
  /** Its document's length: what the backlog's byte bound counts. */
  bytes: number;
  /** The pending entry it is listed in. */
  batch: string;
  /** Came back from a pending entry after a restart: DuckDB may have it already. */
  recheck: boolean;
}

/** An item being made durable: a copy arriving meanwhile waits for it (true once stored). */
interface InFlight<T> {
  data: T;
  durable: Promise<boolean>;
}

/** The value of a pending entry: the items of one accepted batch. */
interface PendingValue {
  items: Array<{ tenant: Tenant; key: DocKey; extra: unknown }>;
}

let batchCounter = 0;
/** Unique within a data directory: time first, then a counter for batches of the same millisecond. */
function newBatchId(): string {
  return `${Date.now().toString(36).padStart(10, '0')}.${(batchCounter++).toString(36)}`;
}

export class Intake<T> {
  private queue: Queued<T>[] = [];
  private queuedBytes = 0;
  private indexing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private lingerTimer?: NodeJS.Timeout;
  /** Readers waiting in settled(): while there are any, nothing lingers. */
  private readersWaiting = 0;
  /** Items being made durable, by key: a duplicate arriving meanwhile waits for the first. */
  private inFlight = new Map<string, InFlight<T>>();
  private roomWaiters: Array<() => void> = [];
  /** Per pending entry, how many of its items are not in DuckDB yet. */
  private unindexed = new Map<string, number>();

  constructor(
    private readonly of: IntakeKind<T>,
    private readonly db: Database,
    private readonly docs: DocStore,
    private readonly maxBatch: number,
    private readonly maxBacklog: number,
    /** Past this many document bytes waiting for DuckDB, senders wait too (large items). */
    private readonly maxBacklogBytes: number,
    private readonly logger: Logger,
    /** Keeps items DuckDB refuses (with the reason) and removes their documents: see indexOrIsolate. */
    private readonly quarantine: (items: Array<Accepted<T> & { key: DocKey }>, reason: string) => Promise<void>,
  ) {}

  /** Indexes what the last run acknowledged but did not get into DuckDB. */
  async recover(): Promise<void> {
    const pending = this.docs.allPending(this.of.kind);
    if (pending.length === 0) return;
    this.logger.info({ [this.of.kind]: pending.length }, `indexing ${this.of.kind} acknowledged before a restart`);
    for (const { id, value } of pending) {
      const { items } = JSON.parse(value) as PendingValue;
      let count = 0;
      for (const { tenant, key, extra } of items) {
        const doc = this.docs.get(this.of.kind, key);
        if (doc === undefined) continue; // cannot happen: they commit together
        this.queue.push({ tenant, data: this.of.slim(this.of.fromDocument(doc, extra)), batch: id, recheck: true, bytes: doc.length });
        this.queuedBytes += doc.length;
        count++;
      }
      if (count) this.unindexed.set(id, count);
      else await this.docs.removePending(this.of.kind, [id]);
    }
    await this.settled();
    if (this.queue.length) throw new Error(`could not index the ${this.of.kind} acknowledged before the restart`);
  }

  /** Resolves once the items are durable (or known duplicates). */
  async accept(items: Item<T>[]): Promise<void> {
    for (const item of items) this.of.check?.(item.data);
    // Keys are claimed before anything is awaited, so a copy accepted in the same tick (or while
    // the first is being made durable) finds the first in flight instead of storing itself too.
    const { fresh, copies } = this.claim(items);
    if (fresh.length) {
      const batch = newBatchId();
      const pending: PendingValue = { items: fresh.map(({ item, key }) => ({ tenant: item.tenant, key, extra: this.of.pending(item.data) })) };
      let stored = false;
      const docs = fresh.map(({ item }) => this.of.document(item.data));
      try {
        await this.docs.put(
          fresh.map(({ key }, i) => ({ kind: this.of.kind, key, doc: docs[i] })),
          { kind: this.of.kind, id: batch, value: JSON.stringify(pending) },
        );
        stored = true;
      } finally {
        for (const { flat, done } of fresh) {
          this.inFlight.delete(flat);
          done(stored);
        }
      }
      fresh.forEach(({ item }, i) => {
        this.queue.push({ tenant: item.tenant, data: this.of.slim(item.data), batch, recheck: false, bytes: docs[i].length });
        this.queuedBytes += docs[i].length;
      });
      this.unindexed.set(batch, fresh.length);
      this.kick(this.due());
    }
    for (const { item, original } of copies) {
      if (!(await original.durable)) throw new Error('a concurrent copy of this item could not be stored; nothing was acknowledged, retry');
      this.of.duplicate?.(item.data, () => original.data);
    }
    // Backpressure: past the backlog, the sender waits (holding its pipeline budget) until
    // DuckDB catches up, so overload turns into refusals rather than memory.
    while (this.full()) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Index now rather than linger: a batch is as large as one transaction takes, senders are held
   * past the backlog, or a reader waits.
   */
  private due(): boolean {
    return this.queue.length >= Math.min(LINGER_ROWS, this.maxBatch) || this.full() || this.roomWaiters.length > 0 || this.readersWaiting > 0;
  }

  private full(): boolean {
    return this.queue.length > this.maxBacklog || this.queuedBytes > this.maxBacklogBytes;
  }

  /** Resolves when everything acknowledged so far is in DuckDB (or its indexing failed and is retried later). */
  async settled(): Promise<void> {
    this.readersWaiting++;
    try {
      for (let rounds = 0; this.queue.length && rounds < 1000; rounds++) {
        this.kick(true);
        const before = this.queue.length;
        await this.indexing;
        if (this.queue.length >= before) return; // failing: readers see what DuckDB has
      }
      await this.indexing;
    } finally {
      this.readersWaiting--;
    }
  }

  async shutdown(): Promise<void> {
    await this.settled();
    clearTimeout(this.retryTimer);
    clearTimeout(this.lingerTimer);
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  /**
   * Sorts the items into the ones to store, each now claimed in flight, and copies of an item that
   * is stored or being stored (in this call or another). Copies of a stored item learn what their
   * acknowledgment needs from it at once; the others after their original is durable.
   */
  private claim(items: Item<T>[]): {
    fresh: Array<{ item: Item<T>; key: DocKey; flat: string; done: (stored: boolean) => void }>;
    copies: Array<{ item: Item<T>; original: InFlight<T> }>;
  } {
    const fresh: Array<{ item: Item<T>; key: DocKey; flat: string; done: (stored: boolean) => void }> = [];
    const copies: Array<{ item: Item<T>; original: InFlight<T> }> = [];
    for (const item of items) {
      const key = this.of.key(item.tenant, item.data);
      const flat = key.join('\0');
      const original = this.inFlight.get(flat);
      if (original) {
        copies.push({ item, original });
        continue;
      }
      if (this.docs.has(this.of.kind, key)) {
        this.of.duplicate?.(item.data, () => this.of.fromDocument(this.docs.get(this.of.kind, key) as string));
        continue;
      }
      let done: (stored: boolean) => void = () => undefined;
      const durable = new Promise<boolean>((resolve) => (done = resolve));
      this.inFlight.set(flat, { data: item.data, durable });
      fresh.push({ item, key, flat, done });
    }
    return { fresh, copies };
  }

  private kick(now: boolean): void {
    if (this.indexing || this.retryTimer || this.queue.length === 0) return;
    if (!now) {
      this.lingerTimer ??= setTimeout(() => {
        this.lingerTimer = undefined;
        this.kick(true);
      }, LINGER_MS);
      this.lingerTimer.unref();
      return;
    }
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    this.indexing = this.loop().finally(() => {
      this.indexing = undefined;
      this.kick(this.due()); // what arrived during the last batch lingers in turn, unless it is due
    });
  }

  private async loop(): Promise<void> {
    for (let first = true; this.queue.length && (first || this.due()); first = false) {
      const batch = this.queue.slice(0, this.maxBatch);
      const recheck = batch.some((item) => item.recheck);
      try {
        await this.indexOrIsolate(batch, recheck);
      } catch (error) {
        // The items stay queued (and pending in the DocStore): tried again after a pause.
        this.logger.error({ err: error, [this.of.kind]: batch.length }, `indexing ${this.of.kind} into DuckDB failed; retrying`);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.kick(true);
        }, RETRY_MS);
        this.retryTimer.unref();
        return;
      }
      this.queue.splice(0, batch.length);
      for (const { bytes } of batch) this.queuedBytes -= bytes;
      if (!this.full()) for (const wake of this.roomWaiters.splice(0)) wake();
      const done: string[] = [];
      for (const { batch: id } of batch) {
        const left = (this.unindexed.get(id) ?? 1) - 1;
        if (left > 0) this.unindexed.set(id, left);
        else {
          this.unindexed.delete(id);
          done.push(id);
        }
      }
      await this.docs.removePending(this.of.kind, done);
    }
  }

  /**
   * Indexes the batch; when DuckDB refuses it for what is in it (not for a failing disk or
   * database), halves it until the items it refuses are alone, and quarantines those: one bad item
   * must not hold back every item after it, nor the next start. Throws for errors worth retrying.
   */
  private async indexOrIsolate(batch: Queued<T>[], recheck: boolean): Promise<void> {
    try {
      await this.db.writeInOwnTransaction((connection) => this.of.index(connection, batch, recheck));
      return;
    } catch (error) {
      if (isTransient(error)) throw error;
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await this.indexOrIsolate(batch.slice(0, half), recheck);
        await this.indexOrIsolate(batch.slice(half), recheck);
        return;
      }
      const reason = error instanceof Error ? error.message : String(error);
      const [item] = batch;
      this.logger.error({ err: error, [this.of.kind]: 1 }, `${this.of.kind} item refused by DuckDB; quarantined`);
      await this.quarantine([{ tenant: item.tenant, data: item.data, key: this.of.key(item.tenant, item.data) }], reason);
    }
  }
}

/** Errors of the disk or the database itself, as opposed to one of the rows: the batch is retried. */
function isTransient(error: unknown): boolean {
  return /IO Error|No space|disk|Could not (write|read|open)|read-only|invalidated|lock|out of memory/i.test(String((error as Error)?.message ?? error));
}
