// Issue lists with the search language (issue-search.ts), an assignee filter and four sorts, over
// the same issue relation as IssueStore; and the selection a bulk change works on (issues by id,
// or every issue a query matches), read in one query.
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import { decodeCursor, encodeCursor } from '../../src/http/cursor.js';
import type { Database } from '../duckdb/database.js';
import { bareKeys, compileSearch, parseSearch, type CompiledSearch } from './issue-search.js';
import type { Issue, IssueStatus, IssueStore } from './issues.js';
import type { MergedSource } from './read-sources.js';
import { rows } from '../duckdb/rows.js';

export type IssueSortKey = 'last_seen' | 'first_seen' | 'events' | 'users';
export const ISSUE_SORT_KEYS: readonly IssueSortKey[] = ['last_seen', 'first_seen', 'events', 'users'];

const SORT_SQL: Record<IssueSortKey, string> = {
  last_seen: 'epoch_us(last_seen)',
  first_seen: 'epoch_us(first_seen)',
  events: 'count',
  users: 'users',
};

const COLUMNS =
  'id, project_id, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at, assignee';

export interface IssueSearch {
  dataset: Dataset;
  projectId: string;
  status?: IssueStatus;
  /** A web user's id, or null for unassigned issues. */
  assigneeId?: string | null;
  /** The search language's text. */
  query?: string;
  /** More `key:value` terms, as if written after the query (the web app's filter menus). */
  terms?: Array<{ key: string; value: string }>;
  /** The web user `assigned:me` means (undefined with an API key). */
  me?: string;
  now?: number;
}

export class IssueFinder {
  constructor(
    private readonly db: Database,
    private readonly events: MergedSource,
    private readonly issues: IssueStore,
  ) {}

  /** Parses and compiles a query (throws SearchSyntaxError): the tag keys it names bare are looked up first. */
  async compile(search: IssueSearch): Promise<CompiledSearch> {
    const extra = (search.terms ?? []).map(({ key, value }) => ({ key, value, negated: false, position: 0, valuePosition: 0 }));
    const terms = [...parseSearch(search.query ?? ''), ...extra];
    const keys = bareKeys(terms);
    const seen = keys.length > 0 ? await this.seenTagKeys(search.dataset, search.projectId, keys) : new Set<string>();
    return compileSearch(terms, { now: search.now ?? Date.now(), me: search.me, seenTagKeys: seen, events: this.events.relation([search.projectId]) });
  }

  /** Which of `keys` are tag keys of some event of the project. */
  async seenTagKeys(dataset: Dataset, projectId: string, keys: string[]): Promise<Set<string>> {
    const result = await this.read(
      `SELECT DISTINCT k FROM (SELECT unnest(json_keys(tags)) AS k FROM ${this.events.relation([projectId])}
        WHERE dataset = $dataset AND project_id = $project AND tags IS NOT NULL AND tags <> '') WHERE list_contains($keys, k)`,
      { dataset, project: projectId, keys: listValue(keys) },
    );
    return new Set(result.getRows().map(([k]) => String(k)));
  }

  /** One page, `sort` descending then id descending, keyset-paginated. */
  async list(search: IssueSearch, sort: IssueSortKey, limit: number, cursor?: string): Promise<{ issues: Issue[]; nextCursor: string | null }> {
    const { where, params, relation } = await this.conditions(search);
    const key = SORT_SQL[sort];
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      where.push(`(${key} < $ck::BIGINT OR (${key} = $ck::BIGINT AND id < $cid))`);
      params.ck = after.micros;
      params.cid = after.id;
    }
    params.limit = limit + 1;
    const result = await this.read(
      `SELECT ${COLUMNS}, (${key})::VARCHAR AS sort_key FROM ${sort === 'users' ? this.withUsers(search.projectId) : relation}
        WHERE ${where.join(' AND ')} ORDER BY ${key} DESC, id DESC LIMIT $limit`,
      params,
    );
    const found = rows<Issue & { sort_key: string }>(result);
    const page = found.slice(0, limit);
    const last = page[page.length - 1];
    return {
      issues: page.map(({ sort_key: _key, ...issue }) => issue),
      nextCursor: found.length > limit && last ? encodeCursor({ micros: BigInt(last.sort_key), id: last.id }) : null,
    };
  }

  /** The issues of the project among `ids` (those not found are missing from the answer). */
  async byIds(dataset: Dataset, projectId: string, ids: string[]): Promise<Issue[]> {
    if (ids.length === 0) return [];
    await this.events.settled(); // acknowledged events are readable
    const result = await this.read(
      `SELECT ${COLUMNS} FROM ${this.issues.relation([projectId])} WHERE dataset = $dataset AND project_id = $project AND list_contains($ids, id)`,
      { dataset, project: projectId, ids: listValue(ids) },
    );
    return rows<Issue>(result);
  }

  /** Every issue the search matches, at most `max` + 1 (so the caller can tell there are more). */
  async matching(search: IssueSearch, max: number): Promise<Issue[]> {
    const { where, params, relation } = await this.conditions(search);
    params.limit = max + 1;
    const result = await this.read(`SELECT ${COLUMNS} FROM ${relation} WHERE ${where.join(' AND ')} ORDER BY last_seen DESC, id DESC LIMIT $limit`, params);
    return rows<Issue>(result);
  }

  private async conditions(search: IssueSearch): Promise<{ where: string[]; params: Record<string, DuckDBValue>; relation: string }> {
    await this.events.settled(); // acknowledged events are readable
    const compiled = await this.compile(search);
    const where = ['dataset = $dataset', 'project_id = $project', ...compiled.where];
    const params: Record<string, DuckDBValue> = { ...compiled.params, dataset: search.dataset, project: search.projectId };
    if (search.status) {
      where.push('status = $status');
      params.status = search.status;
    }
    if (search.assigneeId === null) where.push('assignee IS NULL');
    else if (search.assigneeId !== undefined) {
      where.push('assignee.id = $assignee');
      params.assignee = search.assigneeId;
    }
    return { where, params, relation: this.issues.relation([search.projectId]) };
  }

  /** The issue relation with `users`: distinct users (by id, else email) of its events. */
  private withUsers(projectId: string): string {
    return `(SELECT i.*, coalesce(u.users, 0) AS users FROM ${this.issues.relation([projectId])} i LEFT JOIN
      (SELECT issue_id, count(DISTINCT coalesce(nullif(user_id, ''), nullif(user_email, ''))) AS users FROM ${this.events.relation([projectId])}
        WHERE dataset = $dataset AND project_id = $project GROUP BY issue_id) u ON u.issue_id = i.id)`;
  }

  private async read(sql: string, params: Record<string, DuckDBValue>) {
    return this.events.consistent(() => this.db.reader().runAndReadAll(sql, params));
  }
}
