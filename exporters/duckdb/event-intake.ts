// The duckdb exporter's events path. An event is acknowledged once its document and a pending
// entry are durable in the DocStore (one synced LMDB commit, a few milliseconds); DuckDB gets the
// rows behind that, in batches as large as the backlog, from one indexing loop. Acknowledging
// after the DuckDB commit instead made every request wait for a 20-30 ms commit cycle.
//
// Duplicates: an id is stored if it is pending (acknowledged, not indexed yet), in DuckDB, or
// being stored by a request still in flight. An id without a document is none of these, so fresh
// ids - nearly all - cost one LMDB lookup and no query.
//
// Reads call settled() (through Database) first, so an acknowledged event is always visible.
import { listValue } from '@duckdb/node-api';
import type { Logger } from 'pino';
import type { Item, Tenant } from '../../src/engine/item.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Database } from '../../src/storage/database.js';
import type { EventKey } from '../../src/storage/docs.js';
import { indexEvents, requireIssue, type AcceptedEvent } from './events-writer.js';

const RETRY_MS = 1000;
/**
 * How long acknowledged events may wait for more before they are indexed (reads do not wait for
 * it: they start indexing at once). A DuckDB commit costs about the same for 60 rows as for
 * 1,000, so batching saves most of its work and of the main thread's time around it.
 */
const LINGER_MS = 50;
const LINGER_ROWS = 1000;

interface Queued extends AcceptedEvent {
  /** Came back from a pending entry after a restart: DuckDB may have it already. */
  recheck: boolean;
}

export class EventIntake {
  private queue: Queued[] = [];
  private indexing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private lingerTimer?: NodeJS.Timeout;
  /** Readers waiting in settled(): while there are any, nothing lingers. */
  private readersWaiting = 0;
  /** Events being made durable, by key: a duplicate arriving meanwhile waits for the first. */
  private inFlight = new Map<string, { issueId: string; durable: Promise<void> }>();
  private roomWaiters: Array<() => void> = [];
  private readonly stopSettling: () => void;

  constructor(
    private readonly db: Database,
    private readonly maxBatch: number,
    private readonly maxBacklog: number,
    private readonly logger: Logger,
  ) {
    this.stopSettling = db.onSettle(() => this.settled());
  }

  /** Indexes what the last run acknowledged but did not get into DuckDB. */
  async recover(): Promise<void> {
    const pending = this.db.docs.allPending();
    if (pending.length === 0) return;
    this.logger.info({ events: pending.length }, 'indexing events acknowledged before a restart');
    for (const { key, value } of pending) {
      const doc = this.db.docs.getEvent(...key);
      if (doc === undefined) continue; // cannot happen: the entry and its document commit together
      this.queue.push({ ...fromPending(value, doc), recheck: true });
    }
    await this.settled();
    if (this.queue.length) throw new Error('could not index the events acknowledged before the restart');
  }

  /** Resolves once the items are durable (or known duplicates, which take the stored issue id). */
  async accept(items: Item<ErrorEvent>[]): Promise<void> {
    for (const item of items) requireIssue(item.data);
    const fresh = await this.withoutStored(items);
    if (fresh.length) {
      const entries = fresh.map(({ tenant, data }) => ({
        key: keyOf(tenant.dataset, tenant.projectId, data.id),
        doc: eventDocumentJson(data),
        pending: JSON.stringify({ tenant, grouping_hash: data.grouping_hash } satisfies PendingEntry),
      }));
      const durable = this.db.docs.putEvents(entries);
      const settledDurable = durable.then(
        () => undefined,
        () => undefined,
      );
      for (const { tenant, data } of fresh) this.inFlight.set(flat(tenant.dataset, tenant.projectId, data.id), { issueId: data.issue_id as string, durable: settledDurable });
      try {
        await durable;
      } finally {
        for (const { tenant, data } of fresh) this.inFlight.delete(flat(tenant.dataset, tenant.projectId, data.id));
      }
      for (const { tenant, data } of fresh) this.queue.push({ tenant, data, recheck: false });
      this.kick(this.queue.length >= LINGER_ROWS);
    }
    // Backpressure: past the backlog, the sender waits (holding its pipeline budget) until
    // DuckDB catches up, so overload turns into refusals rather than memory.
    while (this.queue.length > this.maxBacklog) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
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
    this.stopSettling();
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  /** The items to store; the others (repeated ids) take the stored event's issue id for their ack. */
  private async withoutStored(items: Item<ErrorEvent>[]): Promise<Item<ErrorEvent>[]> {
    const docs = this.db.docs;
    const fresh: Item<ErrorEvent>[] = [];
    const candidates: Item<ErrorEvent>[] = [];
    const inBatch = new Map<string, ErrorEvent>();
    for (const item of items) {
      const { tenant, data } = item;
      const key = flat(tenant.dataset, tenant.projectId, data.id);
      const earlier = inBatch.get(key);
      if (earlier) {
        data.issue_id = earlier.issue_id;
        continue;
      }
      inBatch.set(key, data);
      const flying = this.inFlight.get(key);
      if (flying) {
        await flying.durable;
        data.issue_id = flying.issueId;
        continue;
      }
      if (!docs.hasEvent(tenant.dataset, tenant.projectId, data.id)) {
        fresh.push(item);
        continue;
      }
      if (docs.getPending(keyOf(tenant.dataset, tenant.projectId, data.id)) !== undefined) {
        data.issue_id = (JSON.parse(docs.getEvent(tenant.dataset, tenant.projectId, data.id) as string) as ErrorEvent).issue_id;
        continue;
      }
      candidates.push(item); // a document: in DuckDB, or left by a failed commit
    }
    if (candidates.length) {
      const rows = await this.db
        .reader()
        .runAndReadAll('SELECT dataset, project_id, id, issue_id FROM events WHERE list_contains($ids, id)', {
          ids: listValue(candidates.map((item) => item.data.id)),
        });
      const stored = new Map(rows.getRows().map(([dataset, project, id, issue]) => [flat(String(dataset), String(project), String(id)), String(issue)]));
      for (const item of candidates) {
        const issue = stored.get(flat(item.tenant.dataset, item.tenant.projectId, item.data.id));
        if (issue === undefined) fresh.push(item);
        else item.data.issue_id = issue;
      }
    }
    return fresh;
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
      this.kick(false); // what arrived during the last batch lingers in turn
    });
  }

  private async loop(): Promise<void> {
    for (let first = true; this.queue.length && (first || this.readersWaiting > 0 || this.queue.length >= LINGER_ROWS); first = false) {
      const batch = this.queue.slice(0, this.maxBatch);
      const recheck = batch.some((event) => event.recheck);
      try {
        await this.db.writeInOwnTransaction((connection) => indexEvents(connection, batch, recheck));
      } catch (error) {
        // The events stay queued (and pending in the DocStore): tried again after a pause.
        this.logger.error({ err: error, events: batch.length }, 'indexing events into DuckDB failed; retrying');
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.kick(true);
        }, RETRY_MS);
        this.retryTimer.unref();
        return;
      }
      this.queue.splice(0, batch.length);
      if (this.queue.length <= this.maxBacklog) for (const wake of this.roomWaiters.splice(0)) wake();
      await this.db.docs.removePending(batch.map(({ tenant, data }) => keyOf(tenant.dataset, tenant.projectId, data.id)));
    }
  }
}

/**
 * A pending entry holds what the event's document lacks to rebuild the event: the tenant and
 * the grouping hash (small, so the commit a request waits for writes the document only once).
 */
interface PendingEntry {
  tenant: Tenant;
  grouping_hash: string | undefined;
}

function fromPending(value: string, doc: string): AcceptedEvent {
  const { tenant, grouping_hash } = JSON.parse(value) as PendingEntry;
  const { exception, ...rest } = JSON.parse(doc) as ErrorEvent & { exception: { raw_stacktrace?: ErrorEvent['raw_stacktrace'] } };
  const { raw_stacktrace, ...symbolicated } = exception;
  return { tenant, data: { ...rest, exception: symbolicated, raw_stacktrace, grouping_hash } };
}

function keyOf(dataset: string, projectId: string, id: string): EventKey {
  return [dataset, projectId, id];
}

function flat(dataset: string, projectId: string, id: string): string {
  return `${dataset}\0${projectId}\0${id}`;
}
