// Ignored issues that return by themselves ("ignore until", catalog table issue_ignores): N more
// events, M minutes, U more distinct users, or a point in time, counted from the moment of
// ignoring. The issues processor counts the events of these issues as they arrive (a map lookup
// per event while any exists, nothing else) and sweeps the time conditions on its timer; when a
// condition is met the issue is set `unresolved` again through IssueStates (so the change is
// replicated like any status) and every escalation listener hears of it.
import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { EventUser } from '../../src/records/event.js';
import type { IgnoreCondition, IgnoreUntil } from '../../src/records/ignore-until.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

/** An ignored issue that returned to unresolved: what the activity log and the alert rules hear. */
export interface IssueEscalation {
  dataset: Dataset;
  projectId: string;
  issueId: string;
  condition: IgnoreCondition;
  ignoredAt: number;
  /** When it returned (epoch ms). */
  at: number;
  /** An event met the condition (`eventId` is that event), or time did (minutes, until). */
  cause: 'event' | 'time';
  eventId?: string;
}

export type EscalationListener = (escalation: IssueEscalation) => void | Promise<void>;

/** One event of an issue, as the issues processor counts it. */
export interface IgnoredEvent {
  dataset: Dataset;
  projectId: string;
  issueId: string;
  eventId: string;
  user?: EventUser;
}

interface Active extends IgnoreUntil {
  dataset: Dataset;
  projectId: string;
  events: number;
  users: Set<string>;
}

/** Sets an issue unresolved (IssueStates.setStatus, which also deletes its row here). */
export type Unignore = (dataset: Dataset, projectId: string, issueId: string, now: number) => Promise<void>;

/** A user's identity for the distinct-users count: the first of id, email, username, IP address, hashed. */
export function userKey(user: EventUser | undefined): string | undefined {
  const identity = user?.id
    ? `id:${user.id}`
    : user?.email
      ? `email:${user.email}`
      : user?.username
        ? `name:${user.username}`
        : user?.ip_address
          ? `ip:${user.ip_address}`
          : undefined;
  return identity && createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

/** How often counted progress is stored while events of ignored issues arrive. */
const SAVE_INTERVAL_MS = 1_000;

export class IssueIgnores {
  private readonly active = new Map<string, Active>();
  private loaded?: Promise<void>;
  private readonly listeners = new Set<EscalationListener>();
  /** Progress not stored yet (issue -> whether its users changed), stored at most every SAVE_INTERVAL_MS and by flush(). */
  private readonly unsaved = new Map<string, boolean>();
  private lastSaved = 0;

  constructor(
    private readonly db: Database,
    private readonly unignore: Unignore,
  ) {}

  /** Reads every stored condition once (the service calls it at start; later calls wait for the same read). */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      const result = await this.db.reader().runAndReadAll('SELECT id, dataset, project_id, condition, ignored_at, deadline, events, users FROM issue_ignores');
      for (const row of rows<{
        id: string;
        dataset: Dataset;
        project_id: string;
        condition: string;
        ignored_at: number;
        deadline: number | null;
        events: number;
        users: string;
      }>(result))
        this.active.set(row.id, {
          dataset: row.dataset,
          projectId: row.project_id,
          condition: JSON.parse(row.condition) as IgnoreCondition,
          ignoredAt: Number(row.ignored_at),
          deadline: row.deadline === null ? null : Number(row.deadline),
          events: Number(row.events),
          users: new Set(JSON.parse(row.users) as string[]),
        });
    })();
    return this.loaded;
  }

  /** Whether any issue is ignored with a condition (or the conditions are not read yet): else events need no counting. */
  get watching(): boolean {
    return this.loaded === undefined || this.active.size > 0;
  }

  /** Hears every escalation (e.g. to record the activity `escalated`); returns the unsubscribe. */
  onEscalated(listener: EscalationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The issue's condition while it is ignored with one (after load). */
  peek(issueId: string): IgnoreUntil | undefined {
    const active = this.active.get(issueId);
    return active && { condition: active.condition, ignoredAt: active.ignoredAt, deadline: active.deadline };
  }

  /** Stores (or, with null, deletes) an issue's condition inside a status change's transaction; `remember` after it commits. */
  async write(c: DuckDBConnection, issue: { dataset: Dataset; projectId: string; id: string }, value: IgnoreUntil | null): Promise<void> {
    if (value === null) {
      await c.run('DELETE FROM issue_ignores WHERE id = $id', { id: issue.id });
      return;
    }
    await c.run(
      `INSERT INTO issue_ignores (id, dataset, project_id, condition, ignored_at, deadline, events, users) VALUES ($id, $dataset, $project, $condition, $at, $deadline, 0, '[]')
       ON CONFLICT (id) DO UPDATE SET condition = excluded.condition, ignored_at = excluded.ignored_at, deadline = excluded.deadline, events = 0, users = '[]'`,
      {
        id: issue.id,
        dataset: issue.dataset,
        project: issue.projectId,
        condition: JSON.stringify(value.condition),
        at: value.ignoredAt,
        deadline: value.deadline,
      },
    );
  }

  remember(issue: { dataset: Dataset; projectId: string; id: string }, value: IgnoreUntil | null): void {
    if (value === null) this.active.delete(issue.id);
    else this.active.set(issue.id, { ...value, dataset: issue.dataset, projectId: issue.projectId, events: 0, users: new Set() });
  }

  /**
   * Counts events of ignored issues and returns the indexes of those that met their issue's
   * condition (one per issue), whose issues are unresolved again once it resolves. Progress is
   * stored at most every SAVE_INTERVAL_MS (not a catalog write per batch of a noisy ignored issue)
   * and on flush(), which the issues processor calls when it stops: a restart goes on counting
   * from there, a crash forgets at most the last interval's events.
   */
  async observe(events: IgnoredEvent[], now = Date.now()): Promise<Set<number>> {
    const met = new Set<number>();
    if (this.loaded === undefined) await this.load();
    await this.loaded;
    if (this.active.size === 0) return met;
    const progressed = new Map<string, { active: Active; usersChanged: boolean }>();
    const escalating: Array<{ index: number; active: Active; event: IgnoredEvent }> = [];
    events.forEach((event, index) => {
      const active = this.active.get(event.issueId);
      if (!active) return;
      active.events++;
      let usersChanged = progressed.get(event.issueId)?.usersChanged ?? false;
      if ('users' in active.condition && active.users.size < active.condition.users) {
        const user = userKey(event.user);
        if (user !== undefined && !active.users.has(user)) {
          active.users.add(user);
          usersChanged = true;
        }
      }
      if (metBy(active, now)) {
        this.active.delete(event.issueId); // decided once, whatever else this batch holds for it
        progressed.delete(event.issueId);
        escalating.push({ index, active, event });
        met.add(index);
      } else progressed.set(event.issueId, { active, usersChanged });
    });
    for (const [id, { usersChanged }] of progressed) this.unsaved.set(id, (this.unsaved.get(id) ?? false) || usersChanged);
    if (this.unsaved.size > 0 && now - this.lastSaved >= SAVE_INTERVAL_MS) await this.flush(now);
    await Promise.all(
      escalating.map(({ active, event }) =>
        this.escalate(event.issueId, active, now, 'event', event.eventId).catch((error: unknown) => {
          this.active.set(event.issueId, active); // decided again on the retry
          throw error;
        }),
      ),
    );
    return met;
  }

  /** Returns the issues whose time condition (minutes, until) has come by `now`; each is unresolved again. */
  async escalateDue(now = Date.now()): Promise<IssueEscalation[]> {
    await this.load();
    const due = [...this.active].filter(([, active]) => active.deadline !== null && active.deadline <= now);
    const escalations: IssueEscalation[] = [];
    for (const [issueId, active] of due) {
      if (this.active.get(issueId) !== active) continue; // changed meanwhile
      this.active.delete(issueId);
      try {
        escalations.push(await this.escalate(issueId, active, now, 'time'));
      } catch (error) {
        this.active.set(issueId, active);
        throw error;
      }
    }
    return escalations;
  }

  private async escalate(issueId: string, active: Active, now: number, cause: 'event' | 'time', eventId?: string): Promise<IssueEscalation> {
    await this.unignore(active.dataset, active.projectId, issueId, now);
    const escalation: IssueEscalation = {
      dataset: active.dataset,
      projectId: active.projectId,
      issueId,
      condition: active.condition,
      ignoredAt: active.ignoredAt,
      at: now,
      cause,
      ...(eventId === undefined ? {} : { eventId }),
    };
    // A listener's failure is its own: the issue is unresolved whatever it does.
    await Promise.allSettled([...this.listeners].map(async (listener) => listener(escalation)));
    return escalation;
  }

  /** Stores the progress counted since the last save. */
  async flush(now = Date.now()): Promise<void> {
    if (this.unsaved.size === 0) return;
    this.lastSaved = now;
    const saving = [...this.unsaved].flatMap(([id, usersChanged]) => {
      const active = this.active.get(id);
      return active ? [{ id, active, usersChanged }] : [];
    });
    this.unsaved.clear();
    try {
      await this.saveProgress(saving);
    } catch (error) {
      for (const { id, usersChanged } of saving) this.unsaved.set(id, (this.unsaved.get(id) ?? false) || usersChanged);
      throw error;
    }
  }

  private async saveProgress(progressed: Array<{ id: string; active: Active; usersChanged: boolean }>): Promise<void> {
    if (progressed.length === 0) return;
    await this.db.write(async (c) => {
      for (const { id, active, usersChanged } of progressed)
        await c.run(
          usersChanged
            ? 'UPDATE issue_ignores SET events = $events, users = $users WHERE id = $id AND ignored_at = $at'
            : 'UPDATE issue_ignores SET events = $events WHERE id = $id AND ignored_at = $at',
          { id, events: active.events, at: active.ignoredAt, ...(usersChanged ? { users: JSON.stringify([...active.users]) } : {}) },
        );
    });
  }
}

function metBy(active: Active, now: number): boolean {
  const { condition } = active;
  if ('count' in condition) return active.events >= condition.count;
  if ('users' in condition) return active.users.size >= condition.users;
  return active.deadline !== null && active.deadline <= now;
}
