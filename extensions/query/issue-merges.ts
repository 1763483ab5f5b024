// Merge, unmerge, fingerprints, comments and the timeline of an issue (issue #26), over the issue
// store (what exists and where), the redirects (src/storage/issue-redirects.ts) and the activity
// (src/storage/issue-activity.ts). What the API and the web app both call.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import { recordActivity, type Activity, type ActivityInput, type Actor, type IssueActivity } from '../issues/issue-activity.js';
import { TriageRefusal, type IssueRedirects } from '../issues/issue-redirects.js';
import type { IssueStore, Issue } from './issues.js';
import type { MergedSource } from './read-sources.js';
import { rows } from '../duckdb/rows.js';

export { TriageRefusal } from '../issues/issue-redirects.js';

/** The most issues one merge takes. */
export const MAX_MERGE_SOURCES = 100;

/** An issue (or one of its ids) the caller cannot see: the API answers 404. */
export class TriageNotFound extends Error {}

export interface Fingerprint {
  /** The grouping id: the issue id its grouping hash derives (what the issue was opened as). */
  fingerprint: string;
  count: number;
  first_seen: string | null;
  last_seen: string | null;
  /** The issue it belonged to before it was merged into this one, if it was. */
  merged_from: string | null;
}

export class IssueMerges {
  constructor(
    private readonly db: Database,
    private readonly events: MergedSource,
    private readonly issues: IssueStore,
    readonly redirects: IssueRedirects,
    readonly activity: IssueActivity,
  ) {}

  /** An issue of these projects, or the one it was merged into (with `merged_into`). */
  async resolve(dataset: Dataset, projectIds: string[], id: string): Promise<(Issue & { merged_into?: string }) | undefined> {
    const issue = await this.issues.get(dataset, projectIds, id);
    if (issue) return issue;
    const into = this.redirects.mergedInto(dataset, projectIds, id);
    const target = into && (await this.issues.get(dataset, projectIds, into.issueId));
    return target ? { ...target, merged_into: target.id } : undefined;
  }

  /** Merges the sources into the target (all of one project and dataset); answers the target as it reads now. */
  async merge(dataset: Dataset, projectIds: string[], targetId: string, sourceIds: string[], actor: Actor): Promise<Issue> {
    const target = await this.issues.get(dataset, projectIds, targetId);
    if (!target) {
      const into = this.redirects.mergedInto(dataset, projectIds, targetId);
      if (into) throw new TriageRefusal('id', `issue ${targetId} was merged into ${into.issueId}: merge into that one`);
      throw new TriageNotFound(`no issue ${targetId}`);
    }
    const sources: string[] = [];
    for (const [i, id] of sourceIds.entries()) {
      if (id === targetId) throw new TriageRefusal(`issue_ids[${i}]`, 'an issue cannot be merged into itself');
      const source = await this.issues.get(dataset, projectIds, id);
      if (source && source.project_id !== target.project_id)
        throw new TriageRefusal(`issue_ids[${i}]`, `issue ${id} is in project ${source.project_id}, not ${target.project_id}`);
      if (!source && !this.redirects.mergedInto(dataset, projectIds, id)) throw new TriageNotFound(`no issue ${id}`);
      if (!sources.includes(id)) sources.push(id);
    }
    const { moved } = await this.redirects.merge(dataset, target.project_id, targetId, sources);
    const merged = [...new Set(moved.map((m) => m.previous_issue_id as string))];
    if (merged.length > 0) {
      const base = { dataset, project_id: target.project_id, actor };
      await recordActivity(
        this.activity,
        { ...base, issue_id: targetId, kind: 'merged', data: { issue_ids: merged, fingerprints: moved.map((m) => m.grouping_id) } },
        ...merged.map((id): ActivityInput => ({ ...base, issue_id: id, kind: 'merged_into', data: { issue_id: targetId } })),
      );
    }
    return (await this.issues.get(dataset, projectIds, targetId)) ?? target;
  }

  /** Moves fingerprints out of the issue; answers the issue they belong to now. */
  async unmerge(dataset: Dataset, projectIds: string[], issueId: string, fingerprints: string[], actor: Actor): Promise<Issue> {
    const issue = await this.issues.get(dataset, projectIds, issueId);
    if (!issue) throw new TriageNotFound(`no issue ${issueId}`);
    const done = await this.redirects.unmerge(dataset, issue.project_id, issueId, fingerprints);
    if (done.created) await this.issues.setStatus(dataset, projectIds, done.issueId, 'unresolved');
    if (done.moved.length > 0) {
      const base = { dataset, project_id: issue.project_id, actor };
      const moved = done.moved.map((m) => m.grouping_id);
      await recordActivity(
        this.activity,
        { ...base, issue_id: issueId, kind: 'unmerged', data: { fingerprints: moved, issue_id: done.issueId } },
        { ...base, issue_id: done.issueId, kind: 'unmerged_from', data: { fingerprints: moved, issue_id: issueId } },
      );
    }
    const moved = await this.issues.get(dataset, projectIds, done.issueId);
    if (!moved) throw new Error(`issue ${done.issueId} has no events after the unmerge`);
    return moved;
  }

  /** The issue's fingerprints with their events' count and times, most recently seen first. */
  async fingerprints(dataset: Dataset, issue: Pick<Issue, 'id' | 'project_id'>): Promise<Fingerprint[]> {
    const ids = this.redirects.groupingIdsOf(dataset, issue.project_id, issue.id);
    const params: Record<string, DuckDBValue> = { dataset, project: issue.project_id };
    const list = ids.map((id, i) => ((params[`g${i}`] = id), `$g${i}`)).join(', ');
    await this.events.settled();
    const found = await this.events.consistent(() =>
      this.db.reader().runAndReadAll(
        `SELECT issue_id AS fingerprint, count(*)::BIGINT AS count, min(timestamp) AS first_seen, max(timestamp) AS last_seen
           FROM ${this.events.storedRelation([issue.project_id])}
          WHERE dataset = $dataset AND project_id = $project AND issue_id IN (${list}) GROUP BY 1`,
        params,
      ),
    );
    const byId = new Map(rows<Omit<Fingerprint, 'merged_from'>>(found).map((row) => [row.fingerprint, row]));
    return ids
      .map((id): Fingerprint => {
        const from = this.redirects.previousOf(dataset, id);
        return { fingerprint: id, count: 0, first_seen: null, last_seen: null, ...byId.get(id), merged_from: from !== issue.id ? from : null };
      })
      .sort((a, b) => (b.last_seen ?? '').localeCompare(a.last_seen ?? '') || a.fingerprint.localeCompare(b.fingerprint));
  }

  /** Merge candidates: the project's other issues of the same type or culprit, most recently seen first. */
  async similar(dataset: Dataset, issue: Pick<Issue, 'id' | 'project_id' | 'type' | 'culprit'>, limit = 20): Promise<Issue[]> {
    await this.events.settled();
    const found = await this.events.consistent(() =>
      this.db.reader().runAndReadAll(
        `SELECT * FROM ${this.issues.relation([issue.project_id])}
          WHERE dataset = $dataset AND project_id = $project AND id <> $id AND (type = $type OR culprit = $culprit)
          ORDER BY last_seen DESC, id DESC LIMIT $limit`,
        { dataset, project: issue.project_id, id: issue.id, type: issue.type, culprit: issue.culprit, limit },
      ),
    );
    return rows<Issue & { dataset?: string }>(found).map(({ dataset: _dataset, ...rest }) => rest);
  }

  /** A comment on the issue (its Markdown as written; pages render it safely). */
  async comment(dataset: Dataset, issue: Pick<Issue, 'id' | 'project_id'>, text: string, actor: Actor): Promise<Activity> {
    const [entry] = await recordActivity(this.activity, { dataset, project_id: issue.project_id, issue_id: issue.id, kind: 'comment', actor, data: { text } });
    return entry;
  }

  /**
   * The issue's timeline, newest first, ending with its first event (`first_seen`, from the
   * issue's aggregates: it moves with merges and retention).
   */
  async timeline(
    dataset: Dataset,
    issue: Pick<Issue, 'id' | 'project_id'> & { first_seen?: string },
    limit: number,
    before?: { at: number; id: string },
  ): Promise<{ entries: Activity[]; hasMore: boolean }> {
    const found = await this.activity.list(dataset, issue.project_id, issue.id, limit + 1, before);
    const entries = found.slice(0, limit);
    if (found.length > limit) return { entries, hasMore: true };
    const firstSeen = issue.first_seen === undefined ? NaN : Date.parse(issue.first_seen);
    if (!Number.isNaN(firstSeen) && (!before || before.at > firstSeen))
      entries.push({
        id: `first_seen:${issue.id}`,
        dataset,
        project_id: issue.project_id,
        issue_id: issue.id,
        kind: 'first_seen',
        actor: { type: 'system' },
        data: {},
        at: firstSeen,
      });
    return { entries: entries.slice(0, limit), hasMore: entries.length > limit };
  }

  /** Records what changes of issues' fields (status, assignee) did, if they changed them, in one write. */
  async recordChanges(dataset: Dataset, changes: ReadonlyArray<{ before: Issue; after: Issue }>, actor: Actor): Promise<void> {
    const entries = changes.flatMap(({ before, after }): ActivityInput[] => {
      const base = { dataset, project_id: after.project_id, issue_id: after.id, actor };
      const found: ActivityInput[] = [];
      if (before.status !== after.status) found.push({ ...base, kind: 'status', data: { status: after.status, previous: before.status } });
      if (before.assignee?.id !== after.assignee?.id) found.push({ ...base, kind: 'assignee', data: { assignee: after.assignee, previous: before.assignee } });
      return found;
    });
    if (entries.length > 0) await recordActivity(this.activity, ...entries);
  }
}
