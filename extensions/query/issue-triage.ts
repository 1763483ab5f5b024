// Triage writes: an issue's assignee (a web user of its organization, in the catalog's
// issue_assignees), and status and assignee changes to many issues at once, all in one
// transaction, so a bulk change happens to every issue or to none. Each change is recorded for the
// shared control plane in that transaction (statuses as `issue_status`, assignees as
// `issue_assignee`, last writer wins by the time of the change). Whoever must act on an assignment
// (the email notices) subscribes with onAssigned; this module sends nothing itself.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { IgnoreCondition } from '../../src/records/ignore-until.js';
import type { Database } from '../duckdb/database.js';
import type { IssueStates, SettableStatus } from '../issues/issue-states.js';
import type { Issue } from './issues.js';
import { rows } from '../duckdb/rows.js';

export interface Assignee {
  id: string;
  email: string;
}

/** An assignment as the control plane carries it between nodes; `at` in ms since the epoch; null user: unassigned. */
export interface AssigneeChange {
  id: string;
  dataset: Dataset;
  project_id: string;
  user_id: string | null;
  email: string | null;
  at: number;
}

/** Who made a change: a signed-in web user, or an API key (which may act for no user). */
export type Actor = { kind: 'user'; id: string; email: string } | { kind: 'key'; id: string };

/** What onAssigned listeners are told, after the change committed: the issue as it now reads. */
export interface AssignmentNotice {
  dataset: Dataset;
  issue: Issue;
  assignee: Assignee;
  /** Who had it before (null: nobody). */
  previous: Assignee | null;
  actor: Actor;
}

export type AssignmentListener = (notice: AssignmentNotice) => void | Promise<void>;

/** A change to apply: a status, an assignee (null unassigns), or both. */
export interface TriageChange {
  status?: SettableStatus;
  /** With status `ignored`: the condition under which the issue returns by itself. */
  ignoreUntil?: IgnoreCondition;
  assignee?: Assignee | null;
}

export class IssueTriage {
  private readonly listeners = new Set<AssignmentListener>();

  constructor(
    private readonly db: Database,
    private readonly states: IssueStates,
  ) {}

  /**
   * Calls `listener` for every issue assigned to someone (not for unassignments, nor when the
   * assignee stays the same), after the change committed. A listener's failure (thrown or
   * rejected) is its own: the change stands. Returns the function that unsubscribes it.
   */
  onAssigned(listener: AssignmentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The enabled web user of the organization with this email, if any. */
  async assignableUser(orgId: string, email: string): Promise<Assignee | undefined> {
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT id, email FROM web_users WHERE org_id = ? AND email = ? AND disabled_at IS NULL', [orgId, email.trim().toLowerCase()]);
    return rows<Assignee>(result)[0];
  }

  /** The organization's enabled web users, by email: whom an issue can be assigned to. */
  async assignableUsers(orgId: string): Promise<Assignee[]> {
    const result = await this.db.reader().runAndReadAll('SELECT id, email FROM web_users WHERE org_id = ? AND disabled_at IS NULL ORDER BY email', [orgId]);
    return rows<Assignee>(result);
  }

  /**
   * Applies `change` to every issue of `issues` in one transaction; returns how many it changed.
   * `reread` reads the issues again afterwards, for the listeners.
   */
  async apply(
    dataset: Dataset,
    issues: Issue[],
    change: TriageChange,
    actor: Actor,
    reread: (ids: string[]) => Promise<Issue[]>,
    now = Date.now(),
  ): Promise<number> {
    const { status, assignee } = change;
    await this.db.write(async (c) => {
      for (const issue of issues) {
        if (status !== undefined) await this.states.recordStatus(c, dataset, issue.project_id, issue.id, status, now, change.ignoreUntil);
        if (assignee !== undefined)
          await this.recordAssignee(c, {
            id: issue.id,
            dataset,
            project_id: issue.project_id,
            user_id: assignee?.id ?? null,
            email: assignee?.email ?? null,
            at: now,
          });
      }
    });
    if (status !== undefined) for (const issue of issues) this.states.statusCommitted(issue.id, status);
    if (assignee && this.listeners.size > 0) {
      const changed = issues.filter((issue) => issue.assignee?.id !== assignee.id);
      if (changed.length > 0)
        await this.notify(dataset, await reread(changed.map((i) => i.id)), new Map(changed.map((i) => [i.id, i.assignee])), assignee, actor);
    }
    return issues.length;
  }

  private async notify(dataset: Dataset, issues: Issue[], previous: Map<string, Issue['assignee']>, assignee: Assignee, actor: Actor): Promise<void> {
    for (const issue of issues)
      for (const listener of this.listeners) {
        try {
          await listener({ dataset, issue, assignee, previous: previous.get(issue.id) ?? null, actor });
        } catch {
          // The listener's own failure: the assignment stands (it keeps its own retries).
        }
      }
  }

  private async recordAssignee(c: DuckDBConnection, change: AssigneeChange): Promise<void> {
    await writeAssignee(c, change, false);
    await this.db.recordChange(c, { kind: 'issue_assignee', ...change });
  }
}

/** Writes an assignment; a replicated one (`onlyIfNewer`) is kept unless this node's is later. */
async function writeAssignee(c: DuckDBConnection, change: AssigneeChange, onlyIfNewer: boolean): Promise<void> {
  await c.run(
    `INSERT INTO issue_assignees (id, dataset, project_id, user_id, email, changed_at)
     VALUES ($id, $dataset, $project, $user, $email, make_timestamp($at::BIGINT))
     ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, email = excluded.email, changed_at = excluded.changed_at
     ${onlyIfNewer ? 'WHERE issue_assignees.changed_at <= excluded.changed_at' : ''}`,
    { id: change.id, dataset: change.dataset, project: change.project_id, user: change.user_id, email: change.email, at: BigInt(change.at) * 1000n },
  );
}

/** An assignment another node made (the control plane): last writer wins by the time of the change. */
export async function applyAssigneeChange(db: Database, change: AssigneeChange): Promise<void> {
  await db.write((c) => writeAssignee(c, change, true));
}
