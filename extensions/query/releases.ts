// Releases of a project: every release named by its error events or by the sessions its SDKs
// reported (release_sessions), with when it was first and last seen, how many events it had, the
// issues it opened and the ones it brought back, and its crash-free sessions and users.
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import { decodeCursor, encodeCursor } from '../../src/http/cursor.js';
import type { Database } from '../duckdb/database.js';
import type { Issue, IssueStore } from './issues.js';
import type { MergedSource } from './read-sources.js';
import { rows } from '../duckdb/rows.js';

export interface ReleaseHealthSummary {
  sessions: number;
  crashed: number;
  errored: number;
  abnormal: number;
  /** 1 - crashed / sessions; null without sessions. */
  crash_free_sessions: number | null;
  /** Distinct users (the sessions' `did`), and how many of them had a crashed session. */
  users: number;
  crashed_users: number;
  /** 1 - crashed_users / users; null when no session named a user. */
  crash_free_users: number | null;
}

export interface ReleaseSummary {
  version: string;
  project_id: string;
  /** Its first and last error event (or, without events, its last session update for last_seen). */
  first_seen: string | null;
  last_seen: string;
  event_count: number;
  new_issue_count: number;
  health: ReleaseHealthSummary;
}

export interface ReleaseDetail extends ReleaseSummary {
  environments: string[];
  /** Issues first seen in this release, most recently seen first (at most 100). */
  new_issues: Issue[];
  /** Issues an event of this release brought back after they were resolved (at most 100). */
  regressed_issues: Issue[];
}

const MAX_ISSUES = 100;
const NO_EVENTS = '(SELECT NULL::VARCHAR AS release, NULL::TIMESTAMP AS first_seen, NULL::TIMESTAMP AS last_seen, 0::BIGINT AS events WHERE false)';

export class ReleaseStore {
  constructor(
    private readonly db: Database,
    private readonly events: MergedSource,
    private readonly issues: IssueStore,
  ) {}

  /** Releases, most recently seen first, keyset-paginated on (last_seen, version). */
  async list(dataset: Dataset, projectId: string, limit: number, cursor?: string): Promise<{ data: ReleaseSummary[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const params: Record<string, DuckDBValue> = { dataset, project: projectId, limit: limit + 1 };
    let where = '';
    if (after) {
      where = 'WHERE last_seen < make_timestamp($cursor_us::BIGINT) OR (last_seen = make_timestamp($cursor_us::BIGINT) AND release < $cursor_id)';
      params.cursor_us = after.micros;
      params.cursor_id = after.id;
    }
    const found = await this.read<{ release: string; first_seen: string | null; last_seen: string; events: number; micros: string }>(
      `${this.releases(projectId)} SELECT release, first_seen, last_seen, events, epoch_us(last_seen)::VARCHAR AS micros FROM r ${where}
       ORDER BY last_seen DESC, release DESC LIMIT $limit`,
      params,
    );
    const page = found.slice(0, limit);
    const versions = page.map((r) => r.release);
    const [health, newIssues] = await Promise.all([this.health(dataset, projectId, versions), this.newIssueCounts(dataset, projectId, versions)]);
    const last = page.at(-1);
    return {
      data: page.map((r) => ({
        version: r.release,
        project_id: projectId,
        first_seen: r.first_seen,
        last_seen: r.last_seen,
        event_count: Number(r.events),
        new_issue_count: newIssues.get(r.release) ?? 0,
        health: health.get(r.release) ?? emptyHealth(),
      })),
      nextCursor: found.length > limit && last ? encodeCursor({ micros: BigInt(last.micros), id: last.release }) : null,
    };
  }

  /** One release of the project, or undefined when neither an event nor a session names it. */
  async get(dataset: Dataset, projectId: string, version: string): Promise<ReleaseDetail | undefined> {
    const params: Record<string, DuckDBValue> = { dataset, project: projectId, version };
    const [found] = await this.read<{ release: string; first_seen: string | null; last_seen: string; events: number }>(
      `${this.releases(projectId)} SELECT release, first_seen, last_seen, events FROM r WHERE release = $version`,
      params,
    );
    if (!found) return undefined;
    const environments = await this.read<{ environment: string }>(
      `SELECT DISTINCT environment FROM (
         ${this.events.empty ? '' : `SELECT environment FROM ${this.events.relation([projectId])} WHERE dataset = $dataset AND project_id = $project AND release = $version UNION ALL`}
         SELECT environment FROM release_sessions WHERE dataset = $dataset AND project_id = $project AND release = $version) ORDER BY environment`,
      params,
    );
    const [health, newIssues, regressed] = await Promise.all([
      this.health(dataset, projectId, [version]),
      this.issueList(`first_release = $version`, params),
      this.issueList(
        `(status = 'regressed' AND last_release = $version)${
          this.events.empty
            ? ''
            : ` OR id IN (SELECT s.id FROM issue_states s WHERE s.dataset = $dataset AND s.regressed_by IN
                 (SELECT id FROM ${this.events.relation([projectId])} WHERE dataset = $dataset AND project_id = $project AND release = $version))`
        }`,
        params,
      ),
    ]);
    return {
      version,
      project_id: projectId,
      first_seen: found.first_seen,
      last_seen: found.last_seen,
      event_count: Number(found.events),
      new_issue_count: newIssues.length,
      health: health.get(version) ?? emptyHealth(),
      environments: environments.map((e) => e.environment),
      new_issues: newIssues,
      regressed_issues: regressed,
    };
  }

  /** `WITH r AS (…)`: one row per release of the project ($dataset, $project), from events and sessions. */
  private releases(projectId: string): string {
    const events = this.events.empty
      ? NO_EVENTS
      : `(SELECT release, min(timestamp) AS first_seen, max(timestamp) AS last_seen, count(*) AS events
          FROM ${this.events.relation([projectId])} WHERE dataset = $dataset AND project_id = $project GROUP BY release)`;
    return `WITH e AS ${events},
      s AS (SELECT release, max(last_seen_at) AS seen FROM release_sessions WHERE dataset = $dataset AND project_id = $project GROUP BY release),
      r AS (SELECT coalesce(e.release, s.release) AS release, e.first_seen,
              greatest(coalesce(e.last_seen, s.seen), coalesce(s.seen, e.last_seen)) AS last_seen, coalesce(e.events, 0) AS events
            FROM e FULL OUTER JOIN s ON e.release = s.release)`;
  }

  private async issueList(condition: string, params: Record<string, DuckDBValue>): Promise<Issue[]> {
    if (this.events.empty) return [];
    return this.read<Issue>(
      `SELECT id, project_id, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at, assignee
       FROM ${this.issues.relation([String(params.project)])} WHERE dataset = $dataset AND project_id = $project AND (${condition})
       ORDER BY last_seen DESC, id DESC LIMIT ${MAX_ISSUES}`,
      params,
    );
  }

  private async newIssueCounts(dataset: Dataset, projectId: string, versions: string[]): Promise<Map<string, number>> {
    if (versions.length === 0 || this.events.empty) return new Map();
    const found = await this.read<{ release: string; n: number }>(
      `SELECT first_release AS release, count(*) AS n FROM ${this.issues.relation([projectId])}
       WHERE dataset = $dataset AND project_id = $project AND list_contains($versions, first_release) GROUP BY first_release`,
      { dataset, project: projectId, versions: listValue(versions) },
    );
    return new Map(found.map((r) => [r.release, Number(r.n)]));
  }

  /** Sessions and users per release, summed over its environments. */
  private async health(dataset: Dataset, projectId: string, versions: string[]): Promise<Map<string, ReleaseHealthSummary>> {
    const out = new Map<string, ReleaseHealthSummary>();
    if (versions.length === 0) return out;
    const params = { dataset, project: projectId, versions: listValue(versions) };
    const scope = 'dataset = $dataset AND project_id = $project AND list_contains($versions, release)';
    const [sessions, users] = await Promise.all([
      this.read<{ release: string; sessions: number; crashed: number; errored: number; abnormal: number }>(
        `SELECT release, sum(sessions) AS sessions, sum(crashed) AS crashed, sum(errored) AS errored, sum(abnormal) AS abnormal
         FROM release_sessions WHERE ${scope} GROUP BY release`,
        params,
      ),
      this.read<{ release: string; users: number; crashed_users: number }>(
        `SELECT release, count(DISTINCT user_hash) AS users, count(DISTINCT user_hash) FILTER (WHERE crashed) AS crashed_users
         FROM release_session_users WHERE ${scope} GROUP BY release`,
        params,
      ),
    ]);
    for (const s of sessions) {
      const n = Number(s.sessions);
      out.set(s.release, {
        ...emptyHealth(),
        sessions: n,
        crashed: Number(s.crashed),
        errored: Number(s.errored),
        abnormal: Number(s.abnormal),
        crash_free_sessions: n > 0 ? 1 - Number(s.crashed) / n : null,
      });
    }
    for (const u of users) {
      const health = out.get(u.release) ?? emptyHealth();
      const n = Number(u.users);
      out.set(u.release, { ...health, users: n, crashed_users: Number(u.crashed_users), crash_free_users: n > 0 ? 1 - Number(u.crashed_users) / n : null });
    }
    return out;
  }

  private async read<T>(sql: string, params: Record<string, DuckDBValue>): Promise<T[]> {
    await this.events.settled(); // acknowledged events are readable
    return this.events.consistent(async () => rows<T>(await this.db.reader().runAndReadAll(sql, params)));
  }
}

function emptyHealth(): ReleaseHealthSummary {
  return { sessions: 0, crashed: 0, errored: 0, abnormal: 0, crash_free_sessions: null, users: 0, crashed_users: 0, crash_free_users: null };
}
