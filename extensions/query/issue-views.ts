// The issue reads of the web app's pages beyond the API's (the issues list is IssueFinder's):
// per-issue event counts over time, tag distributions and an event's older/newer neighbours. Every
// query runs over the same merged read sources as the /v1 reads (the events' MergedSource and the
// issue relation), so a page and the API never disagree.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { Database } from '../duckdb/database.js';
import type { Issue } from './issues.js';
import type { MergedSource } from './read-sources.js';
import { rows } from '../duckdb/rows.js';

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A chart's buckets: `buckets` buckets of `unit`, the last one holding `now`. */
export function chartWindow(unit: 'hour' | 'day', buckets: number, now = Date.now()): { size: number; start: number; end: number } {
  const size = unit === 'hour' ? HOUR_MS : DAY_MS;
  const end = Math.floor(now / size) * size + size;
  return { size, start: end - buckets * size, end };
}

/** Events the issue page's tag distribution reads: the issue's latest ones. */
export const TAG_SAMPLE = 1_000;
/** How many of an issue's events (on average) the first look for an event's neighbours spans. */
const NEIGHBOUR_WINDOW = 32;
/** A timestamp past any stored one (microseconds; 2262, the largest nanosecond time). */
const MAX_MICROS = 9_223_372_036_854_775n;

export class IssueViews {
  constructor(
    private readonly db: Database,
    private readonly events: MergedSource,
  ) {}

  private async read(sql: string, params: Record<string, DuckDBValue>) {
    await this.events.settled();
    return this.events.consistent(() => this.db.reader().runAndReadAll(sql, params));
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
    const { size, start } = chartWindow(unit, buckets, now);
    const params: Record<string, DuckDBValue> = { dataset, project: projectId, start: BigInt(start) * 1000n, size: BigInt(size) * 1000n };
    const ids = issueIds.map((id, i) => ((params[`i${i}`] = id), `$i${i}`)).join(', ');
    const result = await this.read(
      `SELECT issue_id, ((epoch_us(timestamp) - $start::BIGINT) // $size::BIGINT)::INTEGER AS bucket, count(*)::INTEGER AS n
         FROM ${this.events.relation([projectId])}
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
   * The most frequent values of each tag (with the environment and release) on the issue's events
   * since `since` (epoch ms: the chart's range), at most its latest `sample` ones: a bounded read,
   * so the page answers as fast for an issue of millions of events as for one of a hundred. Each
   * document's tags are parsed once, as a map.
   */
  async tagDistribution(
    dataset: Dataset,
    projectId: string,
    issueId: string,
    since: number,
    top = 5,
    sample = TAG_SAMPLE,
  ): Promise<Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }>> {
    const result = await this.read(
      `WITH e AS (SELECT environment, release, tags FROM ${this.events.relation([projectId])}
                   WHERE dataset = $dataset AND project_id = $project AND issue_id = $issue AND timestamp >= make_timestamp($since::BIGINT)
                   ORDER BY timestamp DESC LIMIT $sample),
            kv AS (
              SELECT 'environment' AS key, environment AS value FROM e
              UNION ALL SELECT 'release', release FROM e
              UNION ALL SELECT unnest(map_keys(m)), unnest(map_values(m))
                FROM (SELECT json_transform(tags, '"MAP(VARCHAR, VARCHAR)"') AS m FROM e WHERE tags IS NOT NULL)),
            c AS (SELECT key, value, count(*)::INTEGER AS n FROM kv WHERE value IS NOT NULL GROUP BY ALL),
            r AS (SELECT *, row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank, sum(n) OVER (PARTITION BY key)::INTEGER AS total FROM c)
       SELECT key, value, n, total FROM r WHERE rank <= $top ORDER BY key = 'environment' DESC, key = 'release' DESC, key, rank`,
      { dataset, project: projectId, issue: issueId, since: BigInt(since) * 1000n, top, sample },
    );
    const out: Array<{ key: string; total: number; values: Array<{ value: string; count: number }> }> = [];
    for (const [key, value, n, total] of result.getRows()) {
      let entry = out[out.length - 1];
      if (!entry || entry.key !== String(key)) out.push((entry = { key: String(key), total: Number(total), values: [] }));
      entry.values.push({ value: String(value), count: Number(n) });
    }
    return out;
  }

  /**
   * The issue page's reads in time: the event to show (`eventId`, else the latest), the ids just
   * older and just newer (timestamp, then id) and the events per bucket of the chart. Each query
   * carries a time bound where it can (the issue's last-seen time, the shown event's, the chart's
   * start), so DuckDB's zone maps skip most row groups and the page costs about the same for an
   * issue of a million events as for one of ten. `event` is undefined when the issue has no such
   * event (another issue's id, or retention took them all).
   */
  async issueTimeline(
    dataset: Dataset,
    issue: Pick<Issue, 'id' | 'project_id' | 'first_seen' | 'last_seen' | 'count'>,
    chart: { unit: 'hour' | 'day'; buckets: number; now?: number },
    eventId?: string,
    window = NEIGHBOUR_WINDOW,
  ): Promise<{ event?: string; older?: string; newer?: string; counts: number[] }> {
    const relation = this.events.relation([issue.project_id]);
    const base = `FROM ${relation} WHERE dataset = $dataset AND project_id = $project AND issue_id = $issue`;
    const params = { dataset, project: issue.project_id, issue: issue.id };
    const latest = `${base} AND timestamp >= make_timestamp($since::BIGINT) ORDER BY timestamp DESC, id DESC LIMIT 1`;
    const current = async (sql: string, extra: Record<string, DuckDBValue>) =>
      rows<{ id: string; micros: string }>(await this.read(`SELECT id, epoch_us(timestamp)::VARCHAR AS micros ${sql}`, { ...params, ...extra }))[0];
    const cur = eventId
      ? await current(`${base} AND id = $event`, { event: eventId })
      : ((await current(latest, { since: BigInt(Date.parse(issue.last_seen) - 1000) * 1000n })) ?? (await current(latest, { since: 0n })));
    const out: { event?: string; older?: string; newer?: string; counts: number[] } = { counts: new Array<number>(chart.buckets).fill(0) };
    if (!cur) return out;
    out.event = cur.id;
    const { size, start } = chartWindow(chart.unit, chart.buckets, chart.now);
    const at = '(timestamp = make_timestamp($ts::BIGINT) AND id';
    // The neighbours are looked for within ~`window` events' worth of the issue's history around
    // the shown event first: without a lower bound, "just older" than the latest event read every
    // older event of the issue, which is slow on the busiest issues (measured in bench/README.md).
    // A side the window holds nothing for is looked for again without it, unless the window
    // already reaches the issue's first (last) event.
    const ts = BigInt(cur.micros);
    const [first, last] = [Date.parse(issue.first_seen), Date.parse(issue.last_seen)];
    const span =
      Number.isFinite(first) && Number.isFinite(last) && issue.count > window ? BigInt(Math.ceil(((last - first) * 1000 * window) / issue.count)) : undefined;
    const bounds = { from: span === undefined ? 0n : ts - span, to: span === undefined ? MAX_MICROS : ts + span };
    const older = (from: bigint) =>
      `(SELECT id ${base} AND (timestamp < make_timestamp($ts::BIGINT) OR ${at} < $id)) AND timestamp >= make_timestamp(${from}::BIGINT) ORDER BY timestamp DESC, id DESC LIMIT 1)`;
    const newer = (to: bigint) =>
      `(SELECT id ${base} AND (timestamp > make_timestamp($ts::BIGINT) OR ${at} > $id)) AND timestamp <= make_timestamp(${to}::BIGINT) ORDER BY timestamp, id LIMIT 1)`;
    const values = { ...params, ts, id: cur.id, start: BigInt(start) * 1000n, size: BigInt(size) * 1000n };
    const result = await this.read(
      `SELECT 'older' AS kind, ${older(bounds.from)} AS value, NULL AS n
       UNION ALL SELECT 'newer', ${newer(bounds.to)}, NULL
       UNION ALL SELECT 'bucket', bucket::VARCHAR, n FROM (
         SELECT ((epoch_us(timestamp) - $start::BIGINT) // $size::BIGINT)::INTEGER AS bucket, count(*)::INTEGER AS n
           ${base} AND timestamp >= make_timestamp($start::BIGINT) GROUP BY ALL)`,
      values,
    );
    for (const [kind, value, n] of result.getRows()) {
      if (kind === 'bucket') {
        const i = Number(value);
        if (i >= 0 && i < chart.buckets) out.counts[i] = Number(n);
      } else if (value != null) out[kind as 'older' | 'newer'] = String(value);
    }
    const again = async (sql: string) => {
      const found = (await this.read(`SELECT ${sql} AS value`, { ...params, ts, id: cur.id })).getRows()[0]?.[0];
      return found == null ? undefined : String(found);
    };
    if (out.older === undefined && span !== undefined && bounds.from > BigInt(first) * 1000n) out.older = await again(older(0n));
    if (out.newer === undefined && span !== undefined && bounds.to < BigInt(last) * 1000n) out.newer = await again(newer(MAX_MICROS));
    return out;
  }

  /** Environments and releases seen in the project (the list's filter choices). */
  async facets(dataset: Dataset, projectId: string): Promise<{ environments: string[]; releases: string[] }> {
    const result = await this.read(
      `SELECT 'environment' AS kind, environment AS value FROM (SELECT DISTINCT environment FROM ${this.events.relation([projectId])}
         WHERE dataset = $dataset AND project_id = $project) UNION ALL
       SELECT 'release', release FROM (SELECT release, max(timestamp) AS seen FROM ${this.events.relation([projectId])}
         WHERE dataset = $dataset AND project_id = $project GROUP BY release ORDER BY seen DESC LIMIT 50)`,
      { dataset, project: projectId },
    );
    const out = { environments: [] as string[], releases: [] as string[] };
    for (const [kind, value] of result.getRows()) (kind === 'environment' ? out.environments : out.releases).push(String(value));
    out.environments.sort();
    return out;
  }
}
