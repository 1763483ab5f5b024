// Merged issues (issue #26): which issue each grouping id belongs to. A grouping id is the issue id
// a grouping hash derives (src/records/issue-id.ts): what every stored event row carries in its
// issue_id column. Merging and unmerging never rewrite stored rows (DuckDB or Parquet): they move
// grouping ids between issues in the catalog's issue_redirects, and the read side maps each row's
// issue_id through it (remapRelation, regroupIssues, remapDocument) while the issues processor
// routes new events with it (route). A project without a redirect reads exactly as before, at no
// cost; the whole table is kept in memory (one row per moved grouping id).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import { issueIdFor } from '../../src/records/issue-id.js';
import type { Database } from '../duckdb/database.js';
import type { Row } from '../../src/engine/read-source.js';

/** Where one grouping id belongs now; `changed_at` in ms since the epoch (last writer wins). */
export interface Redirect {
  grouping_id: string;
  dataset: Dataset;
  project_id: string;
  issue_id: string;
  /** The issue it belonged to before this change (where an unmerge sends it back). */
  previous_issue_id: string | null;
  changed_at: number;
}

/** A redirect as the control plane carries it between nodes. */
export type RedirectChange = { kind: 'issue_redirect' } & Redirect;

/** Why a merge or unmerge was refused: the API answers it as a 400 on `path`. */
export class TriageRefusal extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const key = (dataset: string, groupingId: string) => `${dataset}\0${groupingId}`;

export class IssueRedirects {
  private readonly rows = new Map<string, Redirect>();
  /** Projects with a grouping id that was ever moved: only their reads are mapped. */
  private active = new Set<string>();
  /** Merges and unmerges decide one at a time, on what the previous one wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Database) {}

  async load(): Promise<void> {
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT grouping_id, dataset, project_id, issue_id, previous_issue_id, changed_at FROM issue_redirects');
    for (const [groupingId, dataset, project, issue, previous, at] of result.getRows())
      this.remember({
        grouping_id: String(groupingId),
        dataset: String(dataset) as Dataset,
        project_id: String(project),
        issue_id: String(issue),
        previous_issue_id: previous === null ? null : String(previous),
        changed_at: Number(at),
      });
    this.refreshActive();
  }

  /** The issue a grouping id's events belong to. */
  issueOf(dataset: string, groupingId: string): string {
    return this.rows.get(key(dataset, groupingId))?.issue_id ?? groupingId;
  }

  /** The issue a grouping id was moved out of by its last merge or unmerge, if it was moved. */
  previousOf(dataset: string, groupingId: string): string | null {
    return this.rows.get(key(dataset, groupingId))?.previous_issue_id ?? null;
  }

  /** The grouping ids whose events make the issue (its own first, when it keeps it). */
  groupingIdsOf(dataset: string, projectId: string, issueId: string): string[] {
    const out = this.issueOf(dataset, issueId) === issueId ? [issueId] : [];
    for (const row of this.rows.values())
      if (row.dataset === dataset && row.project_id === projectId && row.issue_id === issueId && row.grouping_id !== issueId) out.push(row.grouping_id);
    return out;
  }

  /** The issue `id` was merged into, when `id` names no issue any more (all its grouping ids moved). */
  mergedInto(dataset: string, projectIds: readonly string[], id: string): { issueId: string; projectId: string } | undefined {
    const row = this.rows.get(key(dataset, id));
    if (!row || row.issue_id === id || !projectIds.includes(row.project_id)) return undefined;
    if (this.groupingIdsOf(dataset, row.project_id, id).length > 0) return undefined;
    return { issueId: row.issue_id, projectId: row.project_id };
  }

  /** Whether any of these projects has a grouping id away from its own issue. */
  isActive(projectIds: readonly string[]): boolean {
    return this.active.size > 0 && projectIds.some((id) => this.active.has(id));
  }

  /**
   * Routes events to the issue their grouping id belongs to (the issues processor, before it
   * decides transitions); answers each event's grouping id as it came.
   */
  route(observations: Array<{ dataset: string; issueId: string }>): string[] {
    return observations.map((observation) => {
      const groupingId = observation.issueId;
      if (this.rows.size > 0) observation.issueId = this.issueOf(observation.dataset, groupingId);
      return groupingId;
    });
  }

  /** An events relation whose issue_id is the issue each row belongs to now. */
  remapRelation(relation: string, projectIds: readonly string[]): string {
    if (!this.isActive(projectIds)) return relation;
    return `(SELECT e.* REPLACE (coalesce(r.issue_id, e.issue_id) AS issue_id) FROM ${relation} e
      LEFT JOIN issue_redirects r ON r.dataset = e.dataset AND r.grouping_id = e.issue_id)`;
  }

  /** Per-grouping-id aggregates (the duckdb exporter's issues table) folded into the issues they belong to now. */
  regroupIssues(kept: string | undefined, projectIds: readonly string[]): string | undefined {
    if (kept === undefined || !this.isActive(projectIds)) return kept;
    return `(SELECT coalesce(r.issue_id, k.id) AS id, k.dataset, k.project_id,
        arg_max(k.title, k.last_seen) AS title, arg_max(k.culprit, k.last_seen) AS culprit, arg_max(k.type, k.last_seen) AS type,
        arg_max(k.value, k.last_seen) AS value, arg_max(k.level, k.last_seen) AS level, min(k.first_seen) AS first_seen,
        max(k.last_seen) AS last_seen, sum(k.count)::BIGINT AS count, arg_min(k.first_release, k.first_seen) AS first_release,
        arg_max(k.last_release, k.last_seen) AS last_release, max(k.last_received) AS last_received
      FROM ${kept} k LEFT JOIN issue_redirects r ON r.dataset = k.dataset AND r.grouping_id = k.id GROUP BY 1, 2, 3)`;
  }

  /** A stored event document with the issue_id its grouping id belongs to now. */
  remapDocument(row: Row, doc: string): string {
    if (!this.isActive([String(row.project_id)])) return doc;
    const event = JSON.parse(doc) as { issue_id?: string; grouping_id?: string };
    const groupingId = event.grouping_id ?? event.issue_id;
    if (groupingId === undefined) return doc;
    const issueId = this.issueOf(String(row.dataset), groupingId);
    return issueId === event.issue_id ? doc : JSON.stringify({ ...event, issue_id: issueId, grouping_id: groupingId });
  }

  /**
   * Moves every grouping id of the sources to the target. Sources already merged into the target
   * change nothing (a repeated merge is a no-op); one merged elsewhere is refused.
   */
  merge(dataset: Dataset, projectId: string, target: string, sources: string[], now = Date.now()): Promise<{ moved: Redirect[] }> {
    return this.serially(async () => {
      const moved: Redirect[] = [];
      sources.forEach((source, i) => {
        const ids = this.groupingIdsOf(dataset, projectId, source);
        if (ids.length === 0) {
          const into = this.mergedInto(dataset, [projectId], source)?.issueId;
          if (into === target) return;
          throw new TriageRefusal(`issue_ids[${i}]`, into ? `issue ${source} was merged into ${into}` : `no issue ${source}`);
        }
        for (const groupingId of ids)
          moved.push({ grouping_id: groupingId, dataset, project_id: projectId, issue_id: target, previous_issue_id: source, changed_at: now });
      });
      await this.write(moved);
      return { moved };
    });
  }

  /**
   * Moves grouping ids out of an issue: back to the issue they came from when they all came from
   * one that has no events of its own any more, else to a new issue (an id derived from the grouping
   * ids, so a retry lands in the same one). Answers the issue they belong to now; `created` when it
   * did not exist before. Repeating an unmerge that was done answers the same issue.
   */
  unmerge(
    dataset: Dataset,
    projectId: string,
    issueId: string,
    groupingIds: string[],
    now = Date.now(),
  ): Promise<{ issueId: string; moved: Redirect[]; created: boolean }> {
    return this.serially(async () => {
      const ids = [...new Set(groupingIds)].sort();
      const current = this.groupingIdsOf(dataset, projectId, issueId);
      const away = ids.filter((id) => !current.includes(id));
      if (away.length > 0) {
        // Done before: every id sits in one issue that an unmerge of this issue moved it to.
        const there = new Set(away.map((id) => this.issueOf(dataset, id)));
        const done = away.length === ids.length && there.size === 1 && ids.every((id) => this.rows.get(key(dataset, id))?.previous_issue_id === issueId);
        if (done) return { issueId: [...there][0], moved: [], created: false };
        throw new TriageRefusal(`fingerprints[${groupingIds.indexOf(away[0])}]`, `${away[0]} is not a fingerprint of issue ${issueId}`);
      }
      if (ids.length >= current.length) throw new TriageRefusal('fingerprints', 'an issue keeps at least one of its fingerprints: leave one out');
      const previous = new Set(ids.map((id) => this.rows.get(key(dataset, id))?.previous_issue_id ?? id));
      const back = previous.size === 1 ? [...previous][0] : undefined;
      const destination =
        back !== undefined && back !== issueId && this.groupingIdsOf(dataset, projectId, back).length === 0
          ? back
          : issueIdFor({ dataset, projectId }, `unmerge\0${ids.join(',')}`);
      const moved = ids.map((id) => ({ grouping_id: id, dataset, project_id: projectId, issue_id: destination, previous_issue_id: issueId, changed_at: now }));
      const created = destination !== back;
      await this.write(moved);
      return { issueId: destination, moved, created };
    });
  }

  /** A redirect another node wrote: kept unless this node's row changed later. */
  async apply(record: Redirect): Promise<void> {
    const { grouping_id, dataset, project_id, issue_id, previous_issue_id, changed_at } = record;
    const change: Redirect = { grouping_id, dataset, project_id, issue_id, previous_issue_id, changed_at };
    const known = this.rows.get(key(change.dataset, change.grouping_id));
    if (known && known.changed_at > change.changed_at) return;
    await this.db.write((c) => this.upsert(c, [change]));
    this.remember(change);
    this.refreshActive();
  }

  private async write(redirects: Redirect[]): Promise<void> {
    if (redirects.length === 0) return;
    await this.db.write(async (c) => {
      await this.upsert(c, redirects);
      for (const redirect of redirects) await this.db.recordChange(c, { kind: 'issue_redirect', ...redirect });
    });
    for (const redirect of redirects) this.remember(redirect);
    this.refreshActive();
  }

  private async upsert(c: DuckDBConnection, redirects: Redirect[]): Promise<void> {
    for (const r of redirects)
      await c.run(
        `INSERT INTO issue_redirects VALUES ($grouping, $dataset, $project, $issue, $previous, $at)
         ON CONFLICT (dataset, grouping_id) DO UPDATE SET issue_id = excluded.issue_id, previous_issue_id = excluded.previous_issue_id,
           changed_at = excluded.changed_at, project_id = excluded.project_id
         WHERE issue_redirects.changed_at <= excluded.changed_at`,
        { grouping: r.grouping_id, dataset: r.dataset, project: r.project_id, issue: r.issue_id, previous: r.previous_issue_id, at: r.changed_at },
      );
  }

  private remember(redirect: Redirect): void {
    this.rows.set(key(redirect.dataset, redirect.grouping_id), { ...redirect });
  }

  private refreshActive(): void {
    const active = new Set<string>();
    // Also rows back at their own issue: documents written meanwhile name the issue they were routed to.
    for (const row of this.rows.values()) active.add(row.project_id);
    this.active = active;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
