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
import type { Item } from '../../src/engine/item.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Database } from '../../src/storage/database.js';
import type { EventKey } from '../../src/storage/docs.js';
import { indexEvents, requireIssue, type AcceptedEvent } from './events-writer.js';

const RETRY_MS = 1000;

interface Queued extends AcceptedEvent {
  /** Came back from a pending entry after a restart: DuckDB may have it already. */
  recheck: boolean;
}

export class EventIntake {
  private queue: Queued[] = [];
  private indexing?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
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
    for (const { value } of pending) this.queue.push({ ...(JSON.parse(value) as AcceptedEvent), recheck: true });
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
        pending: JSON.stringify({ tenant, data } satisfies AcceptedEvent),
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
      this.kick();
    }
    // Backpressure: past the backlog, the sender waits (holding its pipeline budget) until
    // DuckDB catches up, so overload turns into refusals rather than memory.
    while (this.queue.length > this.maxBacklog) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves when everything acknowledged so far is in DuckDB (or its indexing failed and is retried later). */
  async settled(): Promise<void> {
    for (let rounds = 0; this.queue.length && rounds < 1000; rounds++) {
      this.kick();
      const before = this.queue.length;
      await this.indexing;
      if (this.queue.length >= before) return; // failing: readers see what DuckDB has
    }
    await this.indexing;
  }

  async shutdown(): Promise<void> {
    await this.settled();
    clearTimeout(this.retryTimer);
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
      const pending = docs.getPending(keyOf(tenant.dataset, tenant.projectId, data.id));
      if (pending !== undefined) {
        data.issue_id = (JSON.parse(pending) as AcceptedEvent).data.issue_id;
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

  private kick(): void {
    if (this.indexing || this.retryTimer || this.queue.length === 0) return;
    this.indexing = this.loop().finally(() => (this.indexing = undefined));
  }

  private async loop(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.slice(0, this.maxBatch);
      const recheck = batch.some((event) => event.recheck);
      try {
        await this.db.writeInOwnTransaction((connection) => indexEvents(connection, batch, recheck));
      } catch (error) {
        // The events stay queued (and pending in the DocStore): tried again after a pause.
        this.logger.error({ err: error, events: batch.length }, 'indexing events into DuckDB failed; retrying');
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.kick();
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

function keyOf(dataset: string, projectId: string, id: string): EventKey {
  return [dataset, projectId, id];
}

function flat(dataset: string, projectId: string, id: string): string {
  return `${dataset}\0${projectId}\0${id}`;
}
