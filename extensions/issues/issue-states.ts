// The status of every issue, in the catalog (issue_states): what the issues processor consults to
// decide whether an event opens its issue or reopens a resolved one, and what PATCH /v1/issues
// changes. Statuses are read on every event, so they are cached in memory; the cache is this
// process's view, kept right by the writes that go through it.
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { IssueTransition } from '../../src/records/event.js';
import type { Database } from '../duckdb/database.js';
import { ignoreUntil, type IgnoreCondition, type IgnoreUntil } from '../../src/records/ignore-until.js';
import { IssueIgnores } from './issue-ignores.js';
import { IssueActivity, recordActivity } from './issue-activity.js';
import { IssueRedirects } from './issue-redirects.js';

export type IssueStatus = 'unresolved' | 'resolved' | 'ignored' | 'regressed';
export const SETTABLE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

/** An issue's status as the control plane carries it between nodes; `at` in ms since the epoch. */
export interface StatusChange {
  id: string;
  dataset: Dataset;
  project_id: string;
  status: IssueStatus;
  at: number;
  /** With `ignored`: the condition under which the issue returns by itself, and when it was set (epoch ms). */
  ignore_until?: { condition: IgnoreCondition; ignored_at: number };
  /** With a `regressed` a worker decided: the event that reopened it (a redelivery of it reopens it again, on any node). */
  regressed_by?: string;
}

/**
 * A worker opened an issue with an event (`at` in epoch ms): every node learns it, so the worker
 * taking over a lost one's partitions does not open it again, and a redelivery of that event is
 * `new` again there too. Nodes keep the earliest opening (then the smallest event id).
 */
export interface IssueOpenedChange {
  kind: 'issue_opened';
  id: string;
  dataset: Dataset;
  project_id: string;
  opened_by: string;
  at: number;
}

/** One event as the issues processor sees it. */
export interface IssueObservation {
  dataset: Dataset;
  projectId: string;
  issueId: string;
  eventId: string;
  /** The issue the previous grouping version gives the event, while its project moves to a new one. */
  fallbackIssueId?: string;
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
  /** The event that last reopened it: a retry of that event reopens it again, so its alert is not lost. */
  regressedBy?: string | null;
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
  /** Grouping hashes of a new version that belong to an issue the previous version opened: alias -> issue. */
  private readonly aliases = new Map<string, string>();
  /** Whether the catalog may hold aliases this process has not read (until known, it may). */
  private aliasesStored?: Promise<boolean>;
  /** Merged issues: the issue each grouping id belongs to (issue #26). */
  readonly redirects: IssueRedirects;
  /** Each issue's timeline (issue #26). */
  readonly activity: IssueActivity;

  /** Ignored issues that return by themselves (ignore until). */
  readonly ignores: IssueIgnores;
  /** What recordStatus wrote to the ignores, for statusCommitted to remember once it commits. */
  private readonly ignoresWritten = new Map<string, { issue: { dataset: Dataset; projectId: string; id: string }; value: IgnoreUntil | null }>();

  constructor(private readonly db: Database) {
    this.ignores = new IssueIgnores(db, (dataset, projectId, id, now) => this.setStatus(dataset, projectId, id, 'unresolved', now));
    this.redirects = new IssueRedirects(db);
    this.activity = new IssueActivity(db);
    // An ignored issue that came back is a line of its timeline, decided where the ignore was counted.
    this.ignores.onEscalated(async (e) => {
      await recordActivity(this.activity, {
        id: `escalated:${e.issueId}:${e.at}`,
        dataset: e.dataset,
        project_id: e.projectId,
        issue_id: e.issueId,
        kind: 'escalated',
        actor: { type: 'system' },
        at: e.at,
        data: { cause: e.cause, ...(e.eventId ? { event_id: e.eventId } : {}) },
      });
    });
  }

  /**
   * A status another node set: kept unless this node's status of the issue changed later (last
   * writer wins by the time of the change). The cache learns it, so the next event decides on it.
   */
  async applyStatus(change: StatusChange): Promise<void> {
    const at = BigInt(change.at) * 1000n;
    await this.db.write((c) =>
      c.run(
        `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at, regressed_by)
         VALUES ($id, $dataset, $status, make_timestamp($at::BIGINT), $project, NULL, make_timestamp($at::BIGINT), $regressedBy)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, status_changed_at = excluded.status_changed_at,
           regressed_by = coalesce(excluded.regressed_by, issue_states.regressed_by)
           WHERE issue_states.status_changed_at IS NULL OR issue_states.status_changed_at <= excluded.status_changed_at`,
        { id: change.id, dataset: change.dataset, status: change.status, at, project: change.project_id, regressedBy: change.regressed_by ?? null },
      ),
    );
    await this.applyIgnore(change);
    this.cache.delete(change.id); // read again: the row says who wins
  }

  /** An issue another node opened (IssueOpenedChange); the cache reads it again. */
  async applyOpened(change: IssueOpenedChange): Promise<void> {
    await this.db.write((c) =>
      c.run(
        `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
         VALUES ($id, $dataset, 'unresolved', NULL, $project, $event, make_timestamp($at::BIGINT))
         ON CONFLICT (id) DO UPDATE SET opened_by = excluded.opened_by, created_at = excluded.created_at
           WHERE issue_states.opened_by IS NULL OR issue_states.created_at IS NULL OR excluded.created_at < issue_states.created_at
             OR (excluded.created_at = issue_states.created_at AND excluded.opened_by < issue_states.opened_by)`,
        { id: change.id, dataset: change.dataset, project: change.project_id, event: change.opened_by, at: BigInt(change.at) * 1000n },
      ),
    );
    this.cache.delete(change.id);
  }

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

  /**
   * Rewrites each observation's issueId to the issue its event belongs to: the issue an alias
   * names, else the issue itself when it exists, else — while the project moves to a new grouping
   * version — the issue the previous version opened (recording the alias, so that the event's
   * issue stays the same after the transition). Reads the catalog only for issues not cached.
   */
  async resolve(observations: IssueObservation[]): Promise<void> {
    const open: IssueObservation[] = [];
    for (const observation of observations) {
      const target = this.aliases.get(observation.issueId);
      if (target !== undefined) observation.issueId = target;
      else if (!this.cache.has(observation.issueId)) open.push(observation);
    }
    if (open.length === 0) return;
    const fallbacks = open.some((o) => o.fallbackIssueId !== undefined && o.fallbackIssueId !== o.issueId);
    if (!fallbacks && !(await this.mayHaveAliases())) return;
    await this.loadAliases(open.map((o) => o.issueId));
    await this.load(open.flatMap((o) => [o.issueId, o.fallbackIssueId ?? o.issueId]).filter((id) => !this.cache.has(id)));
    const created: Array<{ alias: string; observation: IssueObservation }> = [];
    for (const observation of open) {
      const target = this.aliases.get(observation.issueId);
      const fallback = observation.fallbackIssueId;
      if (target !== undefined) observation.issueId = target;
      else if (!this.cache.has(observation.issueId) && fallback !== undefined && fallback !== observation.issueId && this.cache.has(fallback)) {
        created.push({ alias: observation.issueId, observation });
        this.aliases.set(observation.issueId, fallback);
        observation.issueId = fallback;
      }
    }
    if (created.length > 0) await this.writeAliases(created);
  }

  private mayHaveAliases(): Promise<boolean> {
    this.aliasesStored ??= this.db
      .reader()
      .runAndReadAll('SELECT count(*) FROM (SELECT 1 FROM issue_aliases LIMIT 1)')
      .then((result) => Number(result.getRows()[0][0]) > 0);
    return this.aliasesStored;
  }

  private async loadAliases(ids: string[]): Promise<void> {
    const { list, params } = inList(ids);
    const result = await this.db.reader().runAndReadAll(`SELECT alias_id, issue_id FROM issue_aliases WHERE alias_id IN (${list})`, params);
    for (const [alias, issue] of result.getRows()) this.aliases.set(String(alias), String(issue));
  }

  private async writeAliases(created: Array<{ alias: string; observation: IssueObservation }>): Promise<void> {
    this.aliasesStored = Promise.resolve(true);
    const now = BigInt(Date.now()) * 1000n;
    try {
      await this.db.write(async (c) => {
        for (const { alias, observation } of created)
          await c.run(`INSERT INTO issue_aliases VALUES ($alias, $issue, $dataset, $project, make_timestamp($now::BIGINT)) ON CONFLICT (alias_id) DO NOTHING`, {
            alias,
            issue: observation.issueId,
            dataset: observation.dataset,
            project: observation.projectId,
            now,
          });
      });
    } catch (error) {
      for (const { alias } of created) this.aliases.delete(alias); // decided again on the retry
      throw error;
    }
  }

  /** The change's ignore condition, if the change is what the issue's row holds now (it won). */
  private async applyIgnore(change: StatusChange): Promise<void> {
    const result = await this.db.reader().runAndReadAll('SELECT epoch_ms(status_changed_at) FROM issue_states WHERE id = $id', { id: change.id });
    if (Number(result.getRows()[0]?.[0]) !== change.at) return;
    const issue = { dataset: change.dataset, projectId: change.project_id, id: change.id };
    const value = change.status === 'ignored' && change.ignore_until ? ignoreUntil(change.ignore_until.condition, change.ignore_until.ignored_at) : null;
    await this.db.write((c) => this.ignores.write(c, issue, value));
    this.ignores.remember(issue, value);
  }

  /** The status of an issue as a person sets it; `ignored` with a condition returns by itself (IssueIgnores). */
  async setStatus(dataset: Dataset, projectId: string, id: string, status: SettableStatus, now = Date.now(), ignore?: IgnoreCondition): Promise<void> {
    await this.db.write((c) => this.recordStatus(c, dataset, projectId, id, status, now, ignore));
    this.statusCommitted(id, status);
  }

  /** Writes a status a person set inside the caller's transaction; call statusCommitted once it commits. */
  async recordStatus(
    c: DuckDBConnection,
    dataset: Dataset,
    projectId: string,
    id: string,
    status: SettableStatus,
    now: number,
    ignore?: IgnoreCondition,
  ): Promise<void> {
    const issue = { dataset, projectId, id };
    const ignoring = status === 'ignored' && ignore ? ignoreUntil(ignore, now) : null;
    await this.ignores.write(c, issue, ignoring);
    this.ignoresWritten.set(id, { issue, value: ignoring });
    await c.run(
      `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
       VALUES ($id, $dataset, $status, make_timestamp($now::BIGINT), $project, NULL, make_timestamp($now::BIGINT))
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, status_changed_at = excluded.status_changed_at`,
      { id, dataset, status, now: BigInt(now) * 1000n, project: projectId },
    );
    await this.db.recordChange(c, {
      kind: 'issue_status',
      id,
      dataset,
      project_id: projectId,
      status,
      at: now,
      ...(ignoring ? { ignore_until: { condition: ignoring.condition, ignored_at: now } } : {}),
    });
  }

  /** The cache learns a status recordStatus wrote, once its transaction committed. */
  statusCommitted(id: string, status: SettableStatus): void {
    const written = this.ignoresWritten.get(id);
    this.ignoresWritten.delete(id);
    if (written) this.ignores.remember(written.issue, written.value);
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
      if (state.status === 'regressed' && state.regressedBy === event.eventId) return 'regressed';
      if (state.status === 'resolved') {
        state.status = 'regressed';
        state.regressedBy = event.eventId;
        writes.push({ ...event, transition: 'regressed' });
        return 'regressed';
      }
      return undefined;
    });
    return { transitions, writes };
  }

  private async load(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const { list, params } = inList(ids);
    const result = await this.db.reader().runAndReadAll(`SELECT id, status, opened_by, regressed_by FROM issue_states WHERE id IN (${list})`, params);
    for (const [id, status, openedBy, regressedBy] of result.getRows())
      this.remember(String(id), {
        status: String(status) as IssueStatus,
        openedBy: openedBy === null ? null : String(openedBy),
        regressedBy: regressedBy === null ? null : String(regressedBy),
      });
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
    const at = Date.now();
    const now = BigInt(at) * 1000n;
    await this.db.write(async (c) => {
      for (const { dataset, projectId, issueId, eventId, transition } of writes) {
        if (transition === 'new') {
          await c.run(
            `INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
             VALUES ($id, $dataset, 'unresolved', NULL, $project, $event, make_timestamp($now::BIGINT)) ON CONFLICT (id) DO NOTHING`,
            { id: issueId, dataset, project: projectId, event: eventId, now },
          );
          await this.db.recordChange(c, { kind: 'issue_opened', id: issueId, dataset, project_id: projectId, opened_by: eventId, at });
        } else {
          await c.run(
            `UPDATE issue_states SET status = 'regressed', status_changed_at = make_timestamp($now::BIGINT), regressed_by = $event
             WHERE id = $id AND status = 'resolved'`,
            { id: issueId, now, event: eventId },
          );
          await this.db.recordChange(c, { kind: 'issue_status', id: issueId, dataset, project_id: projectId, status: 'regressed', at, regressed_by: eventId });
        }
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

/** `$i0, $i1, …` for the distinct ids, with their parameters. */
function inList(ids: string[]): { list: string; params: Record<string, DuckDBValue> } {
  const params: Record<string, DuckDBValue> = {};
  const list = [...new Set(ids)].map((id, i) => ((params[`i${i}`] = id), `$i${i}`)).join(', ');
  return { list, params };
}
