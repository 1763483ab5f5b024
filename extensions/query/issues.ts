// Issue reads and status changes (lists: issue-finder.ts). An issue's aggregates (count, first and last seen, releases,
// title) come from the events' read source: the source's own table where it keeps one (the duckdb
// exporter folds them as it stores events), else aggregated from the events. Its status comes from
// the catalog's issue_states, which the issues processor and PATCH /v1/issues keep (a resolved issue
// whose events were received after its resolution reads as regressed, whatever recorded it); its
// assignee from issue_assignees (issue-triage.ts).
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import type { IssueStates, IssueStatus, SettableStatus } from '../issues/issue-states.js';
import type { MergedSource } from './read-sources.js';
import { rows } from '../duckdb/rows.js';
import type { IgnoreCondition, IgnoreUntil } from '../../src/records/ignore-until.js';

export { SETTABLE_STATUSES, type IssueStatus } from '../issues/issue-states.js';

export interface Issue {
  id: string;
  project_id: string;
  title: string;
  culprit: string;
  type: string;
  value: string;
  level: string;
  status: IssueStatus;
  first_seen: string;
  last_seen: string;
  count: number;
  first_release: string;
  last_release: string;
  status_changed_at: string | null;
  /** The web user the issue is assigned to (issue-triage.ts), else null. */
  assignee: { id: string; email: string } | null;
}

const COLUMNS =
  'id, project_id, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at, assignee';

export class IssueStore {
  constructor(
    private readonly db: Database,
    private readonly events: MergedSource,
    private readonly states: IssueStates,
  ) {}

  /** Issues of these projects as a relation with the columns of an issue. */
  relation(projectIds: string[]): string {
    const kept = this.states.redirects.regroupIssues(this.events.single?.issues?.(projectIds), projectIds);
    const aggregates =
      kept ??
      `(SELECT issue_id AS id, dataset, project_id,
          arg_max(title, timestamp) AS title, arg_max(culprit, timestamp) AS culprit,
          arg_max(exception_type, timestamp) AS type, arg_max(exception_value, timestamp) AS value,
          arg_max(level, timestamp) AS level, min(timestamp) AS first_seen, max(timestamp) AS last_seen,
          count(*) AS count, arg_min(release, timestamp) AS first_release, arg_max(release, timestamp) AS last_release,
          max(received_at) AS last_received
        FROM ${this.events.relation(projectIds)} GROUP BY issue_id, dataset, project_id)`;
    return `(SELECT a.id, a.dataset, a.project_id, a.title, a.culprit, a.type, a.value, a.level,
        CASE WHEN s.status IS NULL THEN 'unresolved'
             WHEN s.status = 'resolved' AND a.last_received > s.status_changed_at THEN 'regressed'
             ELSE s.status END AS status,
        a.first_seen, a.last_seen, a.count, a.first_release, a.last_release, s.status_changed_at,
        CASE WHEN t.user_id IS NULL THEN NULL ELSE {'id': t.user_id, 'email': t.email} END AS assignee
      FROM ${aggregates} a LEFT JOIN issue_states s ON s.id = a.id AND s.dataset = a.dataset
        LEFT JOIN issue_assignees t ON t.id = a.id AND t.dataset = a.dataset)`;
  }

  /** The issue, if it belongs to one of `projectIds`. */
  async get(dataset: Dataset, projectIds: string[], id: string): Promise<Issue | undefined> {
    await this.events.settled(); // acknowledged events are readable
    if (projectIds.length === 0) return undefined;
    const params: Record<string, DuckDBValue> = { dataset, id };
    const projects = projectIds.map((p, i) => ((params[`p${i}`] = p), `$p${i}`)).join(', ');
    const result = await this.events.consistent(() =>
      this.db
        .reader()
        .runAndReadAll(`SELECT ${COLUMNS} FROM ${this.relation(projectIds)} WHERE dataset = $dataset AND id = $id AND project_id IN (${projects})`, params),
    );
    return rows<Issue>(result)[0];
  }

  /** Sets the status of an issue of one of `projectIds`; undefined when there is none. */
  async setStatus(dataset: Dataset, projectIds: string[], id: string, status: SettableStatus, ignore?: IgnoreCondition): Promise<Issue | undefined> {
    const issue = await this.get(dataset, projectIds, id);
    if (!issue) return undefined;
    await this.states.setStatus(dataset, issue.project_id, id, status, undefined, ignore);
    return this.get(dataset, projectIds, id);
  }

  /** The condition an ignored issue returns under (ignore until), if it has one. */
  ignoreUntil(id: string): IgnoreUntil | undefined {
    return this.states.ignores.peek(id);
  }
}
