// Event reads: filtered, newest first (timestamp desc, then id desc), keyset-paginated with an
// opaque cursor, from the events' read sources (read-sources.ts). Pages are assembled from the
// stored JSON documents without parsing them, taken from the source's document store for rows
// read without one. Over a source partitioned by day (the lake), a page reads the newest
// partitions first and widens only when they cannot fill it, so the first page opens a few files.
import { listValue, type DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../engine/item.js';
import { decodeCursor, encodeCursor, type Cursor } from '../http/cursor.js';
import type { Database } from './database.js';
import type { MergedSource } from './read-sources.js';

export interface EventFilter {
  dataset: Dataset;
  projectId: string;
  /** Each filter field lists values that must all hold (two different values match nothing). */
  environment?: string[];
  release?: string[];
  issueId?: string[];
  level?: string[];
  /** Inclusive lower bound, epoch ms. */
  start?: number;
  /** Exclusive upper bound, epoch ms. */
  end?: number;
  userId?: string[];
  userEmail?: string[];
  traceId?: string[];
  tags?: Array<[key: string, value: string]>;
  /** Free-text terms, each matched (case-insensitively, as a substring) against type, value or message. */
  text?: string[];
}

export interface Page {
  /** JSON documents, newest first. */
  docs: string[];
  nextCursor: string | null;
}

const DAY_MS = 24 * 3600 * 1000;
/** How far back an events-table page looks before it widens (see listFrom). */
const LOOKBACK_MS = [DAY_MS, 7 * DAY_MS, 31 * DAY_MS, Infinity];
/** Timestamps may be up to 5 minutes ahead of receipt (validation clamps later ones). */
const WINDOW_SLACK_MS = 10 * 60 * 1000;

export class EventStore {
  constructor(
    private readonly db: Database,
    private readonly source: MergedSource,
  ) {}

  async list(filter: EventFilter, limit: number, cursor?: string): Promise<Page> {
    await this.source.settled(); // acknowledged events are readable
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (!this.source.partitioned) return this.listFrom(this.source.relation([filter.projectId]), filter, limit, after);
    // Date partitions that can hold a row of this page, newest first.
    const upper = Math.min(filter.end ?? Infinity, after ? Number(after.micros / 1000n) + 1 : Infinity);
    const dates = this.source
      .dates(filter.projectId)
      .filter((date) => (filter.start === undefined || Date.parse(date) + DAY_MS > filter.start) && Date.parse(date) < upper);
    for (let take = 1; ; take *= 4) {
      const chosen = dates.slice(0, take);
      const page = await this.source.consistent(() =>
        this.listFrom(this.source.relation([filter.projectId], { kind: 'dates', dates: chosen }), filter, limit, after),
      );
      // Enough when the page is full and its last row is no older than the oldest partition read:
      // every row of the partitions left out is older still.
      const oldest = chosen.length ? Date.parse(chosen[chosen.length - 1]) : -Infinity;
      if (take >= dates.length || (page.docs.length === limit && page.lastMicros !== undefined && Number(page.lastMicros / 1000n) >= oldest)) return page;
    }
  }

  private async listFrom(relation: string, filter: EventFilter, limit: number, after: Cursor | undefined): Promise<Page & { lastMicros?: bigint }> {
    const where: string[] = ['dataset = $dataset', 'project_id = $project'];
    const params: Record<string, DuckDBValue> = { dataset: filter.dataset, project: filter.projectId };
    const eq = (column: string, name: string, values: string[] | undefined) => {
      values?.forEach((value, i) => {
        where.push(`${column} = $${name}${i}`);
        params[`${name}${i}`] = value;
      });
    };
    eq('environment', 'environment', filter.environment);
    eq('release', 'release', filter.release);
    eq('issue_id', 'issue', filter.issueId);
    eq('level', 'level', filter.level);
    eq('user_id', 'user_id', filter.userId);
    eq('user_email', 'user_email', filter.userEmail);
    eq('trace_id', 'trace_id', filter.traceId);
    if (filter.start !== undefined) {
      where.push('timestamp >= make_timestamp($start::BIGINT)');
      params.start = BigInt(filter.start) * 1000n;
    }
    if (filter.end !== undefined) {
      where.push('timestamp < make_timestamp($end::BIGINT)');
      params.end = BigInt(filter.end) * 1000n;
    }
    filter.tags?.forEach(([key, value], i) => {
      where.push(`json_extract_string(tags, $tag_path${i}) = $tag_value${i}`);
      params[`tag_path${i}`] = `$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`;
      params[`tag_value${i}`] = value;
    });
    filter.text?.forEach((term, i) => {
      where.push(`(exception_type ILIKE $text${i} ESCAPE '\\' OR exception_value ILIKE $text${i} ESCAPE '\\' OR message ILIKE $text${i} ESCAPE '\\')`);
      params[`text${i}`] = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    });
    if (after !== undefined) {
      where.push('(timestamp < make_timestamp($cursor_ts::BIGINT) OR (timestamp = make_timestamp($cursor_ts::BIGINT) AND id < $cursor_id))');
      params.cursor_ts = after.micros;
      params.cursor_id = after.id;
    }
    params.limit = limit + 1;
    // Keys first, documents after: ordering rows while carrying their multi-kilobyte documents
    // made a page read every scanned row's document, which grew with the table (figures:
    // bench/README.md, "Why the code is shaped this way").
    // A table (not a query over several places): rows arrive in time order, see below.
    const direct = /^\w+$/.test(relation);
    const reader = this.db.reader();
    const keysIn = async (since: number | undefined) =>
      (
        await reader.runAndReadAll(
          `SELECT id, epoch_us(timestamp) AS micros FROM ${relation} WHERE ${where.join(' AND ')}
           ${since === undefined ? '' : 'AND timestamp >= make_timestamp($since::BIGINT)'}
           ORDER BY timestamp DESC, id DESC LIMIT $limit`,
          since === undefined ? params : { ...params, since: BigInt(since) * 1000n },
        )
      ).getRows();
    // In the events table, look back a day first, then a week, a month, everything: rows arrive
    // in time order, so DuckDB's zone maps skip the row groups before the window and a page of a
    // busy project reads a sliver of the table instead of every timestamp in it. A window that
    // yields more rows than the page holds every row of the page, since all rows left out are older.
    const newest = Math.min(filter.end ?? Infinity, after ? Number(after.micros / 1000n) : Infinity, Date.now() + WINDOW_SLACK_MS);
    let keys: DuckDBValue[][] = [];
    for (const span of direct ? LOOKBACK_MS : [Infinity]) {
      const since = newest - span;
      const bounded = Number.isFinite(since) && (filter.start === undefined || since > filter.start);
      keys = await keysIn(bounded ? since : undefined);
      if (!bounded || keys.length > limit) break;
    }
    const page = keys.slice(0, limit);
    const docs = new Map<string, string>();
    const stored = (id: unknown, doc: unknown) =>
      this.source.document({ dataset: filter.dataset, project_id: filter.projectId, id: String(id), doc: String(doc) });
    if (direct && this.source.single?.keyed?.includes('events')) {
      // The source finds each document by its key (the duckdb exporter's DocStore).
      for (const [id] of page) {
        const doc = stored(id, '');
        if (doc !== undefined) docs.set(String(id), doc);
      }
    } else if (page.length) {
      const fetched = await reader.runAndReadAll(
        `SELECT id, doc FROM ${relation} WHERE dataset = $dataset AND project_id = $project AND list_contains($ids, id)`,
        {
          dataset: filter.dataset,
          project: filter.projectId,
          ids: listValue(page.map((row) => String(row[0]))),
        },
      );
      for (const [id, doc] of fetched.getRows()) {
        const found = stored(id, doc);
        if (found !== undefined) docs.set(String(id), found);
      }
    }
    // The reads are separate snapshots: a row deleted in between (retention), or moved (a
    // checkpoint after deletes renumbers rows), is read again the slow, single-statement way.
    if (page.some((row) => !docs.has(String(row[0])))) {
      const again = await reader.runAndReadAll(
        `SELECT id, doc FROM ${relation} WHERE ${where.join(' AND ')} ORDER BY timestamp DESC, id DESC LIMIT $limit`,
        params,
      );
      docs.clear();
      const byId = new Map(again.getRows().map(([id, doc]) => [String(id), stored(id, doc)]));
      for (const [id] of page) {
        const doc = byId.get(String(id));
        if (doc !== undefined) docs.set(String(id), doc);
      }
    }
    const last = page[page.length - 1];
    return {
      docs: page.filter((row) => docs.has(String(row[0]))).map((row) => docs.get(String(row[0])) as string),
      nextCursor: keys.length > limit && last ? encodeCursor({ micros: last[1] as bigint, id: String(last[0]) }) : null,
      lastMicros: last ? (last[1] as bigint) : undefined,
    };
  }

  /** The stored document of one event among `projectIds`, if any. */
  async get(dataset: Dataset, projectIds: string[], id: string): Promise<string | undefined> {
    if (projectIds.length === 0) return undefined;
    if (this.source.single?.keyed?.includes('events')) {
      // The source has every stored event's document from the moment it was acknowledged (the
      // duckdb exporter's DocStore): a lookup per project, microseconds, where DuckDB took milliseconds.
      const found = projectIds.flatMap((project) => this.source.document({ dataset, project_id: project, id, doc: '' }) ?? []);
      if (found.length <= 1) return found[0];
      const receivedAt = (doc: string) => String((JSON.parse(doc) as { received_at: string }).received_at);
      return found.sort((a, b) => receivedAt(a).localeCompare(receivedAt(b)))[0]; // the first to arrive, as below
    }
    await this.source.settled(); // acknowledged events are readable
    const projectMatch = projectIds.length === 1 ? 'project_id = $p0' : `project_id IN (${projectIds.map((_, i) => `$p${i}`).join(', ')})`;
    const params: Record<string, DuckDBValue> = { dataset, id };
    projectIds.forEach((p, i) => (params[`p${i}`] = p));
    const result = await this.source.consistent(() =>
      this.db
        .reader()
        .runAndReadAll(
          `SELECT project_id, doc FROM ${this.source.relation(projectIds)} WHERE dataset = $dataset AND id = $id AND ${projectMatch} ORDER BY received_at LIMIT 1`,
          params,
        ),
    );
    const row = result.getRows()[0];
    return row ? this.source.document({ dataset, project_id: String(row[0]), id, doc: String(row[1]) }) : undefined;
  }

  /** Per project: when an event last arrived and how many arrived in the last 24 hours. */
  async activity(dataset: Dataset, projectIds: string[], now = Date.now()): Promise<Map<string, { last_received_at: string; count_24h: number }>> {
    if (this.source.empty || projectIds.length === 0) return new Map();
    await this.source.settled(); // acknowledged events are readable
    const result = await this.source.consistent(() =>
      this.db.reader().runAndReadAll(
        `SELECT project_id, max(received_at) AS last, count(*) FILTER (WHERE received_at >= make_timestamp($since::BIGINT)) AS recent
         FROM ${this.source.relation(projectIds)} WHERE dataset = $dataset GROUP BY project_id`,
        { dataset, since: BigInt(now - 24 * 3600 * 1000) * 1000n },
      ),
    );
    const out = new Map<string, { last_received_at: string; count_24h: number }>();
    for (const row of result.getRowObjectsJS()) {
      out.set(String(row.project_id), { last_received_at: (row.last as Date).toISOString(), count_24h: Number(row.recent) });
    }
    return out;
  }
}
