// What the pages read beyond the API's stores: issue lists with the web app's filters and sorts,
// per-issue event counts over time, tag distributions and an event's older/newer neighbours. Every
// query runs over the same merged read sources as the /v1 reads (storage.eventRows and the issue
// relation), so a page and the API never disagree.
import type { DuckDBValue } from '@duckdb/node-api';
import type { ParsedQuery } from '../api/query-syntax.js';
import type { Dataset } from '../engine/item.js';
import { isoMicros } from '../records/event-row.js';
import type { Database } from '../storage/database.js';
import type { Issue, IssueStatus } from '../storage/issues.js';
import { rows } from '../storage/rows.js';
import type { Storage } from '../storage/storage.js';

export type IssueSort = 'last_seen' | 'first_seen' | 'count';
export const ISSUE_SORTS: readonly IssueSort[] = ['last_seen', 'first_seen', 'count'];

export interface IssueQuery {
  dataset: Dataset;
  projectId: string;
  status?: IssueStatus;
  environment?: string;
  release?: string;
  level?: string;
  search: ParsedQuery;
  sort: IssueSort;
  cursor?: string;
  limit: number;
}

const SORT_KEY: Record<IssueSort, string> = { last_seen: 'epoch_us(last_seen)', first_seen: 'epoch_us(first_seen)', count: 'count' };
const HOUR_MS = 3600 * 1000;
/** The issue page's tag distribution reads this many of the issue's latest events. */
export const TAG_SAMPLE = 1000;
/** How many of an issue's events (on average) the neighbours' first window holds. */
const NEIGHBOUR_WINDOW = 32;
const DAY_MS = 24 * HOUR_MS;

export class InvalidWebCursorError extends Error {}

function encode(cursor: { k: string; id: string }): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

function decode(text: string): { k: string; id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { k?: unknown; id?: unknown };
    if (typeof parsed.k === 'string' && /^-?\d+$/.test(parsed.k) && typeof parsed.id === 'string') return { k: parsed.k, id: parsed.id };
  } catch {
    // fall through
  }
  throw new InvalidWebCursorError('the cursor is not one this page gave');
}

export class WebData {
  constructor(
    private readonly db: Database,
    private readonly storage: Storage,
  ) {}

  private async read(sql: string, params: Record<string, DuckDBValue>) {
    await this.storage.eventRows.settled();
    return this.storage.eventRows.consistent(() => this.db.reader().runAndReadAll(sql, params));
  }

  /** Conditions on events (the filters that are about events, not issues), as SQL over the events relation. */
  private eventConditions(q: IssueQuery, params: Record<string, DuckDBValue>): string[] {
    const where: string[] = [];
    const eq = (column: string, values: Array<string | undefined>) =>
      values.forEach((value) => {
        if (value === undefined) return;
        const name = `e${Object.keys(params).length}`;
        params[name] = value;
        where.push(`${column} = $${name}`);
      });
    const s = q.search;
    eq('environment', [q.environment, s.environment]);
    eq('release', [q.release, s.release]);
    eq('level', [q.level, s.level]);
    eq('user_id', [s.userId]);
    eq('user_email', [s.userEmail]);
    eq('trace_id', [s.traceId]);
    for (const [key, value] of s.tags) {
      const n = Object.keys(params).length;
      params[`tp${n}`] = `$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`;
      params[`tv${n}`] = value;
      where.push(`json_extract_string(tags, $tp${n}) = $tv${n}`);
    }
    for (const term of s.text) {
      const name = `t${Object.keys(params).length}`;
      params[name] = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`(exception_type ILIKE $${name} ESCAPE '\\' OR exception_value ILIKE $${name} ESCAPE '\\' OR message ILIKE $${name} ESCAPE '\\')`);
    }
    return where;
  }

  async listIssues(q: IssueQuery): Promise<{ issues: Issue[]; nextCursor: string | null }> {
    const params: Record<string, DuckDBValue> = { dataset: q.dataset, project: q.projectId, limit: q.limit + 1 };
    const where = ['dataset = $dataset', 'project_id = $project'];
    if (q.status) {
      where.push('status = $status');
      params.status = q.status;
    }
    const events = this.eventConditions(q, params);
    if (events.length)
      where.push(
        `id IN (SELECT issue_id FROM ${this.storage.eventRows.relation([q.projectId])} WHERE dataset = $dataset AND project_id = $project AND ${events.join(' AND ')})`,
      );
    const key = SORT_KEY[q.sort];
    if (q.cursor) {
      const after = decode(q.cursor);
      where.push(`(${key} < $ck::BIGINT OR (${key} = $ck::BIGINT AND id < $cid))`);
      params.ck = after.k;
      params.cid = after.id;
    }
    const result = await this.read(
      `SELECT id, project_id, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at,
              (${key})::VARCHAR AS sort_key
         FROM ${this.storage.issues.relation([q.projectId])} WHERE ${where.join(' AND ')}
        ORDER BY ${key} DESC, id DESC LIMIT $limit`,
      params,
    );
    const found = rows<Issue & { sort_key: string }>(result);
    const page = found.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      issues: page.map(({ sort_key: _key, ...issue }) => issue),
      nextCursor: found.length > q.limit && last ? encode({ k: last.sort_key, id: last.id }) : null,
    };
  }

  /**
   * Events per bucket for each issue: `buckets` buckets of `unit` ending with the current one.
   * One query for a whole list of issues (the list's sparklines).
   */
  async counts(
    dataset: Dataset,
    projectId: string,
    issueIds: string[],
    unit: 'hour' | 'day',
    buckets: number,
    now = Date.now(),
  ): Promise<Map<string, number[]>> {
    const out = new Map(issueIds.map((id) => [id, new Array<number>(buckets).fill(0)]));
    if (issueIds.length === 0) return out;
    const size = unit === 'hour' ? HOUR_MS : DAY_MS;
    const end = Math.floor(now / size) * size + size;
    const start = end - buckets * size;
    const params: Record<string, DuckDBValue> = { dataset, project: projectId, start: BigInt(start) * 1000n, size: BigInt(size) * 1000n };
    const ids = issueIds.map((id, i) => ((params[`i${i}`] = id), `$i${i}`)).join(', ');
    const result = await this.read(
      `SELECT issue_id, ((epoch_us(timestamp) - $start::BIGINT) // $size::BIGINT)::INTEGER AS bucket, count(*)::INTEGER AS n
         FROM ${this.storage.eventRows.relation([projectId])}
        WHERE dataset = $dataset AND project_id = $project AND issue_id IN (${ids}) AND timestamp >= make_timestamp($start::BIGINT)
        GROUP BY ALL`,
      params,
    );
    for (const [issue, bucket, n] of result.getRows()) {
      const series = out.get(String(issue));
      const i = Number(bucket);
      if (series && i >= 0 && i < buckets) series[i] = Number(n);
    }
    return out;
  }

  /**
   * The most frequent values of each tag (with the environment and release) on the issue's latest
   * `sample` events. All of them made the issue page take seconds at 10M events (every event's
   * tags parsed as JSON, 900k for the busiest issue); the latest 1,000 are a fraction of it. They
   * are found in a window ending at the issue's last event and sized from its count, so DuckDB's
   * zone maps skip the older row groups (rows arrive in time order); when the window holds too
   * few (the events are not evenly spread), the issue's whole history is read.
   */
  async tagDistribution(
    dataset: Dataset,
    projectId: string,
    issue: { id: string; first_seen: string; last_seen: string; count: number },
    top = 5,
    sample = TAG_SAMPLE,
  ): Promise<{ sampled: number; tags: Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }> }> {
    const first = Date.parse(issue.first_seen);
    const last = Date.parse(issue.last_seen);
    const share = Math.min(1, (2 * sample) / Math.max(1, issue.count));
    const windows = share < 1 && Number.isFinite(first) && Number.isFinite(last) ? [Math.floor(last - (last - first) * share), undefined] : [undefined];
    let rows: DuckDBValue[][] = [];
    for (const since of windows) {
      const params: Record<string, DuckDBValue> = { dataset, project: projectId, issue: issue.id, top, sample };
      if (since !== undefined) params.since = BigInt(since) * 1000n;
      const result = await this.read(
        `WITH e AS (SELECT environment, release, tags FROM ${this.storage.eventRows.relation([projectId])}
                     WHERE dataset = $dataset AND project_id = $project AND issue_id = $issue
                       ${since === undefined ? '' : 'AND timestamp >= make_timestamp($since::BIGINT)'}
                     ORDER BY timestamp DESC LIMIT $sample),
              kv AS (
                SELECT 'environment' AS key, environment AS value FROM e
                UNION ALL SELECT 'release', release FROM e
                UNION ALL SELECT unnest(map_keys(m)), unnest(map_values(m))
                  FROM (SELECT json_transform(tags, '"MAP(VARCHAR, VARCHAR)"') AS m FROM e WHERE tags IS NOT NULL)),
              c AS (SELECT key, value, count(*)::INTEGER AS n FROM kv WHERE value IS NOT NULL GROUP BY ALL),
              r AS (SELECT *, row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank, sum(n) OVER (PARTITION BY key)::INTEGER AS total FROM c)
         SELECT key, value, n, total, (SELECT count(*) FROM e)::INTEGER AS sampled FROM r WHERE rank <= $top
          ORDER BY key = 'environment' DESC, key = 'release' DESC, key, rank`,
        params,
      );
      rows = result.getRows();
      if (Number(rows[0]?.[4] ?? 0) >= Math.min(sample, issue.count)) break;
    }
    const out: Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }> = [];
    for (const [key, value, n, total] of rows) {
      let entry = out[out.length - 1];
      if (!entry || entry.key !== String(key)) out.push((entry = { key: String(key), total: Number(total), values: [] }));
      entry.values.push({ value: String(value), count: Number(n) });
    }
    return { sampled: Number(rows[0]?.[4] ?? 0), tags: out };
  }

  /**
   * The ids of the events of the issue just older and just newer than this one (timestamp, then
   * id). Each side is looked for first in a window around the event sized from the issue's count
   * (some 32 events' worth), so the zone maps skip the rest of the table: unbounded, "just older"
   * read every older event of the issue (100 ms for the busiest issue at 10M events). When the
   * window holds none and does not reach the issue's first (last) event, that side is looked for
   * again without it.
   */
  async neighbours(
    dataset: Dataset,
    projectId: string,
    issue: { id: string; first_seen: string; last_seen: string; count: number },
    event: { id: string; timestamp: string },
    window = NEIGHBOUR_WINDOW,
  ): Promise<{ older?: string; newer?: string }> {
    const ts = isoMicros(event.timestamp);
    const [firstMs, lastMs] = [Date.parse(issue.first_seen), Date.parse(issue.last_seen)];
    const known = Number.isFinite(firstMs) && Number.isFinite(lastMs);
    const [first, last] = known ? [BigInt(firstMs) * 1000n, BigInt(lastMs) * 1000n] : [0n, 0n];
    const span = known && issue.count > window ? BigInt(Math.ceil((Number(last - first) * window) / issue.count)) : undefined;
    const relation = this.storage.eventRows.relation([projectId]);
    const base = `FROM ${relation} WHERE dataset = $dataset AND project_id = $project AND issue_id = $issue`;
    const side = async (older: boolean, bound?: bigint): Promise<string | undefined> => {
      const params: Record<string, DuckDBValue> = { dataset, project: projectId, issue: issue.id, ts, id: event.id };
      if (bound !== undefined) params.bound = bound;
      const [lt, gt] = older ? ['<', '>='] : ['>', '<='];
      const result = await this.read(
        `SELECT id ${base} AND (timestamp ${lt} make_timestamp($ts::BIGINT) OR (timestamp = make_timestamp($ts::BIGINT) AND id ${lt} $id))
           ${bound === undefined ? '' : `AND timestamp ${gt} make_timestamp($bound::BIGINT)`}
         ORDER BY timestamp ${older ? 'DESC' : ''}, id ${older ? 'DESC' : ''} LIMIT 1`,
        params,
      );
      const found = result.getRows()[0]?.[0];
      if (found != null) return String(found);
      const reached = bound === undefined || (older ? bound <= first : bound >= last);
      return reached ? undefined : side(older);
    };
    const [older, newer] = await Promise.all([side(true, span === undefined ? undefined : ts - span), side(false, span === undefined ? undefined : ts + span)]);
    return { older, newer };
  }

  /** Environments and releases seen in the project (the list's filter choices). */
  async facets(dataset: Dataset, projectId: string): Promise<{ environments: string[]; releases: string[] }> {
    const result = await this.read(
      `SELECT 'environment' AS kind, environment AS value FROM (SELECT DISTINCT environment FROM ${this.storage.eventRows.relation([projectId])}
         WHERE dataset = $dataset AND project_id = $project) UNION ALL
       SELECT 'release', release FROM (SELECT release, max(timestamp) AS seen FROM ${this.storage.eventRows.relation([projectId])}
         WHERE dataset = $dataset AND project_id = $project GROUP BY release ORDER BY seen DESC LIMIT 50)`,
      { dataset, project: projectId },
    );
    const out = { environments: [] as string[], releases: [] as string[] };
    for (const [kind, value] of result.getRows()) (kind === 'environment' ? out.environments : out.releases).push(String(value));
    out.environments.sort();
    return out;
  }
}
