// The status of every issue, in the catalog (issue_states): what the issues processor consults to
// decide whether an event opens its issue or reopens a resolved one, and what PATCH /v1/issues
// changes. Statuses are read on every event, so they are cached in memory; the cache is this
// process's view, kept right by the writes that go through it.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../engine/item.js';
import type { IssueTransition } from '../records/event.js';
import type { Database } from './database.js';

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored' | 'regressed';
export const SETTABLE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

/** One event as the issues processor sees it. */
export interface IssueObservation {
  dataset: Dataset;
  projectId: string;
  issueId: string;
  eventId: string;
}

interface Decided {
  transitions: Array<IssueTransition | undefined>;
  writes: Array<IssueObservation & { transition: IssueTransition }>;
}

interface Round {
  events: IssueObservation[];
  /** Decided before it waited (every issue was cached), or in its round. */
  decided?: Decided;
  resolve: (transitions: Array<IssueTransition | undefined>) => void;
  reject: (error: unknown) => void;
}

interface State {
  status: IssueStatus;
  /** The event that opened the issue: a retry of that event opens it again (see observe). */
  openedBy: string | null;
}

/** Issues whose state is kept in memory; past it, the older half is forgotten (and read again when needed). */
const CACHE_ENTRIES = 100_000;

export class IssueStates {
  private readonly cache = new Map<string, State>();
  /**
   * Observations that must read or write the catalog, waiting for the next round. A round takes
   * every one waiting (one query for the issues not cached, one transaction for the transitions),
   * so a burst of new issues costs a few catalog round trips, not one each; rounds run one at a
   * time, so two observations never both open one issue.
   */
  private waiting: Round[] = [];
  private running?: Promise<void>;

  constructor(private readonly db: Database) {}

  /**
   * What each event does to its issue, recorded in the catalog before it resolves: `new` for the
   * first event of an issue (and for a retry of that same event, whose first attempt may have
   * failed after the issue was recorded), `regressed` for an event of a resolved issue.
   */
  observe(events: IssueObservation[]): Promise<Array<IssueTransition | undefined>> {
    // Nearly always every issue is cached and nothing changes: no catalog round trip at all.
    const decided = events.every((event) => this.cache.has(event.issueId)) ? this.decide(events) : undefined;
    if (decided && decided.writes.length === 0) return Promise.resolve(decided.transitions);
    return new Promise((resolve, reject) => {
      this.waiting.push({ events, decided, resolve, reject });
      this.running ??= this.rounds().finally(() => (this.running = undefined));
    });
  }

  /** The status of an issue as a person sets it. */
  async setStatus(dataset: Dataset, projectId: string, id: string, status: SettableStatus, now = Date.now()): Promise<void> {
    await this.db.write((c) =>
      c.run(
        `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
         VALUES ($id, $dataset, $status, make_timestamp($now::BIGINT), $project, NULL, make_timestamp($now::BIGINT))
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, status_changed_at = excluded.status_changed_at`,
        { id, dataset, status, now: BigInt(now) * 1000n, project: projectId },
      ),
    );
    const known = this.cache.get(id);
    this.remember(id, { status, openedBy: known?.openedBy ?? null });
  }

  /** Decides from the cache (every issue must be in it), updating it at once for the events after. */
  private decide(events: IssueObservation[]): Decided {
    const writes: Array<IssueObservation & { transition: IssueTransition }> = [];
    const transitions = events.map((event): IssueTransition | undefined => {
      const state = this.cache.get(event.issueId);
      if (state === undefined) {
        this.remember(event.issueId, { status: 'unresolved', openedBy: event.eventId });
        writes.push({ ...event, transition: 'new' });
        return 'new';
      }
      if (state.openedBy === event.eventId) return 'new';
      if (state.status === 'resolved') {
        state.status = 'regressed';
        writes.push({ ...event, transition: 'regressed' });
        return 'regressed';
      }
      return undefined;
    });
    return { transitions, writes };
  }

  private async load(ids: string[]): Promise<void> {
    const missing = [...new Set(ids)];
    if (missing.length === 0) return;
    const params: Record<string, DuckDBValue> = {};
    const list = missing.map((id, i) => ((params[`i${i}`] = id), `$i${i}`)).join(', ');
    const result = await this.db.reader().runAndReadAll(`SELECT id, status, opened_by FROM issue_states WHERE id IN (${list})`, params);
    for (const [id, status, openedBy] of result.getRows())
      this.remember(String(id), { status: String(status) as IssueStatus, openedBy: openedBy === null ? null : String(openedBy) });
  }

  private async rounds(): Promise<void> {
    while (this.waiting.length) {
      const round = this.waiting.splice(0);
      try {
        const undecided = round.filter((job) => !job.decided);
        await this.load(undecided.flatMap((job) => job.events.map((event) => event.issueId)).filter((id) => !this.cache.has(id)));
        for (const job of undecided) job.decided = this.decide(job.events);
      } catch (error) {
        for (const job of round) job.reject(error);
        continue;
      }
      const writes = round.flatMap((job) => job.decided?.writes ?? []);
      try {
        if (writes.length) await this.write(writes);
      } catch (error) {
        for (const { issueId } of writes) this.cache.delete(issueId); // read again next time
        for (const job of round) job.reject(error);
        continue;
      }
      for (const job of round) job.resolve(job.decided?.transitions ?? []);
    }
  }

  private async write(writes: Array<IssueObservation & { transition: IssueTransition }>): Promise<void> {
    const now = BigInt(Date.now()) * 1000n;
    await this.db.write(async (c) => {
      for (const { dataset, projectId, issueId, eventId, transition } of writes) {
        if (transition === 'new')
          await c.run(
            `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
             VALUES ($id, $dataset, 'unresolved', NULL, $project, $event, make_timestamp($now::BIGINT)) ON CONFLICT (id) DO NOTHING`,
            { id: issueId, dataset, project: projectId, event: eventId, now },
          );
        else
          await c.run(`UPDATE issue_states SET status = 'regressed', status_changed_at = make_timestamp($now::BIGINT) WHERE id = $id AND status = 'resolved'`, {
            id: issueId,
            now,
          });
      }
    });
  }

  private remember(id: string, state: State): void {
    this.cache.delete(id);
    this.cache.set(id, state);
    if (this.cache.size > CACHE_ENTRIES) {
      let drop = this.cache.size / 2;
      for (const key of this.cache.keys()) {
        if (drop-- <= 0) break;
        this.cache.delete(key);
      }
    }
  }
}
