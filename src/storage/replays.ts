// Reads of session replays: a replay is the merge of its segment rows (from the read sources that
// service.storage.replays names), its error bookmarks the events that carry its replay id (from
// the events' sources), and a segment's events the compressed blob its source stored.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../engine/item.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';
import type { Database } from './database.js';
import type { MergedSource } from './read-sources.js';
import type { Row } from '../engine/read-source.js';

export interface ReplayFilter {
  dataset: Dataset;
  projectId: string;
  environment?: string;
  release?: string;
  userId?: string;
  /** Replays one of whose URLs contains this text. */
  url?: string;
  hasErrors?: boolean;
  /** Inclusive bounds on the replay's duration (first segment's start to last segment's end), ms. */
  minDurationMs?: number;
  maxDurationMs?: number;
}

export interface ErrorBookmark {
  event_id: string;
  timestamp: string;
  offset_ms: number;
  title: string;
  issue_id: string;
  link: string;
}

export interface ReplaySummary {
  id: string;
  project_id: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  segment_count: number;
  event_count: number;
  /** Compressed bytes stored, and the uncompressed bytes they hold. */
  size_bytes: number;
  raw_bytes: number;
  environment: string | null;
  release: string | null;
  user: { id?: string; email?: string } | null;
  urls: string[];
  error_ids: string[];
  trace_ids: string[];
}

export interface Replay extends ReplaySummary {
  error_bookmarks: ErrorBookmark[];
  streams: Array<{ segment_id: number; url: string; size_bytes: number; raw_bytes: number; event_count: number; started_at: string; finished_at: string }>;
  processing_errors: Array<{ segment_id: number; type: string; path: string; message: string }>;
}

interface SegmentRow {
  dataset: string;
  project_id: string;
  replay_id: string;
  segment_id: number;
  started_at: Date;
  finished_at: Date;
  environment: string | null;
  release: string | null;
  user_id: string | null;
  user_email: string | null;
  urls: string;
  error_ids: string;
  trace_ids: string;
  event_count: number;
  raw_bytes: bigint | number;
  stored_bytes: bigint | number;
  blob: string;
  doc: string;
}

const SEGMENT_COLUMNS = `dataset, project_id, replay_id, segment_id, started_at, finished_at, environment, release, user_id, user_email,
  urls, error_ids, trace_ids, event_count, raw_bytes, stored_bytes, blob, doc`;

export class ReplayStore {
  constructor(
    private readonly db: Database,
    private readonly segments: MergedSource,
    private readonly events: MergedSource,
    private readonly appUrl: string,
  ) {}

  /** The replay, from the first of `projectIds` that has it; undefined when none does. */
  async get(dataset: Dataset, projectIds: string[], replayId: string): Promise<Replay | undefined> {
    if (projectIds.length === 0) return undefined;
    await this.segments.settled();
    const rows = await this.segmentRows(dataset, projectIds, [replayId]);
    if (rows.length === 0) return undefined;
    const project = rows[0].project_id;
    const own = rows.filter((row) => row.project_id === project);
    const summary = merge(own);
    const base = `${this.appUrl}/v1/replays/${encodeURIComponent(replayId)}/segments`;
    const processing = own.flatMap((row) => {
      const doc = this.segments.document(row as unknown as Row);
      const notes = doc ? ((JSON.parse(doc) as { processing_errors?: Array<{ type: string; path: string; message: string }> }).processing_errors ?? []) : [];
      return notes.map((note) => ({ segment_id: row.segment_id, ...note }));
    });
    return {
      ...summary,
      error_bookmarks: await this.bookmarks(dataset, project, replayId, Date.parse(summary.started_at)),
      streams: own.map((row) => ({
        segment_id: row.segment_id,
        url: `${base}/${row.segment_id}`,
        size_bytes: Number(row.stored_bytes),
        raw_bytes: Number(row.raw_bytes),
        event_count: row.event_count,
        started_at: row.started_at.toISOString(),
        finished_at: row.finished_at.toISOString(),
      })),
      processing_errors: processing,
    };
  }

  /** A segment's events as stored: a gzip-compressed JSON array; undefined when unknown. */
  async segment(dataset: Dataset, projectIds: string[], replayId: string, segmentId: number): Promise<Buffer | undefined> {
    if (projectIds.length === 0) return undefined;
    await this.segments.settled();
    const rows = await this.segmentRows(dataset, projectIds, [replayId], segmentId);
    const row = rows[0];
    if (!row) return undefined;
    for (const source of this.segments.sources) {
      const blob = await source.segment?.(row as unknown as Row);
      if (blob) return blob;
    }
    return undefined;
  }

  /** Replays newest first (by start), filtered; `cursor` from the previous page. */
  async list(filter: ReplayFilter, limit: number, cursor?: string): Promise<{ data: ReplaySummary[]; nextCursor: string | null }> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    await Promise.all([this.segments.settled(), filter.hasErrors !== undefined ? this.events.settled() : undefined]);
    const params: Record<string, DuckDBValue> = { dataset: filter.dataset, project: filter.projectId, limit: limit + 1 };
    const having: string[] = [];
    if (filter.environment !== undefined) {
      having.push('bool_or(environment = $environment)');
      params.environment = filter.environment;
    }
    if (filter.release !== undefined) {
      having.push('bool_or(release = $release)');
      params.release = filter.release;
    }
    if (filter.userId !== undefined) {
      having.push('bool_or(user_id = $user_id)');
      params.user_id = filter.userId;
    }
    if (filter.url !== undefined) {
      having.push(`bool_or(len(list_filter(from_json(urls, '["VARCHAR"]'), u -> contains(u, $url))) > 0)`);
      params.url = filter.url;
    }
    if (filter.minDurationMs !== undefined) {
      having.push('epoch_ms(max(finished_at)) - epoch_ms(min(started_at)) >= $min_ms');
      params.min_ms = filter.minDurationMs;
    }
    if (filter.maxDurationMs !== undefined) {
      having.push('epoch_ms(max(finished_at)) - epoch_ms(min(started_at)) <= $max_ms');
      params.max_ms = filter.maxDurationMs;
    }
    if (filter.hasErrors !== undefined) {
      const linked = this.events.empty
        ? 'false'
        : `replay_id IN (SELECT replay_id FROM ${this.events.relation([filter.projectId])} WHERE dataset = $dataset AND project_id = $project AND replay_id IS NOT NULL)`;
      having.push(`${filter.hasErrors ? '' : 'NOT '}(bool_or(error_ids <> '[]') OR ${linked})`);
    }
    if (after) {
      having.push(
        '(min(started_at) < make_timestamp($cursor_ts::BIGINT) OR (min(started_at) = make_timestamp($cursor_ts::BIGINT) AND replay_id < $cursor_id))',
      );
      params.cursor_ts = after.micros;
      params.cursor_id = after.id;
    }
    const ids = await this.segments.consistent(async () => {
      const result = await this.db.reader().runAndReadAll(
        `SELECT replay_id, epoch_us(min(started_at)) AS started FROM ${this.segments.relation([filter.projectId])}
         WHERE dataset = $dataset AND project_id = $project GROUP BY replay_id
         ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
         ORDER BY min(started_at) DESC, replay_id DESC LIMIT $limit`,
        params,
      );
      return result.getRows().map(([id, started]) => ({ id: String(id), started: BigInt(started as bigint) }));
    });
    const page = ids.slice(0, limit);
    const rows = page.length
      ? await this.segmentRows(
          filter.dataset,
          [filter.projectId],
          page.map((p) => p.id),
        )
      : [];
    const byReplay = new Map<string, SegmentRow[]>();
    for (const row of rows) byReplay.set(row.replay_id, [...(byReplay.get(row.replay_id) ?? []), row]);
    const data = page.flatMap(({ id }) => {
      const own = byReplay.get(id);
      return own ? [merge(own)] : [];
    });
    const last = page.at(-1);
    return { data, nextCursor: ids.length > limit && last ? encodeCursor({ micros: last.started, id: last.id }) : null };
  }

  /** Per project: when its last segment arrived, and how many replays got a segment in the 24 hours before `now`. */
  async activity(dataset: Dataset, projectIds: string[], now = Date.now()): Promise<Map<string, { last_received_at: string; count_24h: number }>> {
    const out = new Map<string, { last_received_at: string; count_24h: number }>();
    if (this.segments.empty || projectIds.length === 0) return out;
    await this.segments.settled();
    const params: Record<string, DuckDBValue> = { dataset, since: BigInt(now - 24 * 3600 * 1000) * 1000n };
    const projects = projectIds.map((id, i) => ((params[`p${i}`] = id), `$p${i}`)).join(', ');
    const result = await this.segments.consistent(() =>
      this.db.reader().runAndReadAll(
        `SELECT project_id, max(received_at) AS last, count(DISTINCT replay_id) FILTER (WHERE received_at >= make_timestamp($since::BIGINT)) AS recent
         FROM ${this.segments.relation(projectIds)} WHERE dataset = $dataset AND project_id IN (${projects}) GROUP BY project_id`,
        params,
      ),
    );
    for (const row of result.getRowObjectsJS())
      out.set(String(row.project_id), { last_received_at: (row.last as Date).toISOString(), count_24h: Number(row.recent) });
    return out;
  }

  private async segmentRows(dataset: Dataset, projectIds: string[], replayIds: string[], segmentId?: number): Promise<SegmentRow[]> {
    const params: Record<string, DuckDBValue> = { dataset };
    const projects = projectIds.map((id, i) => ((params[`p${i}`] = id), `$p${i}`)).join(', ');
    const replays = replayIds.map((id, i) => ((params[`r${i}`] = id), `$r${i}`)).join(', ');
    if (segmentId !== undefined) params.segment = segmentId;
    return this.segments.consistent(async () => {
      const result = await this.db.reader().runAndReadAll(
        `WITH s AS MATERIALIZED (SELECT * FROM ${this.segments.relation(projectIds)} WHERE replay_id IN (${replays}))
         SELECT ${SEGMENT_COLUMNS} FROM s WHERE dataset = $dataset AND project_id IN (${projects})
         ${segmentId !== undefined ? 'AND segment_id = $segment' : ''}
         ORDER BY array_position([${projects}], project_id), replay_id, segment_id`,
        params,
      );
      return result.getRowObjectsJS() as unknown as SegmentRow[];
    });
  }

  /** The error events that carry the replay id, oldest first, placed on the replay's timeline. */
  private async bookmarks(dataset: Dataset, projectId: string, replayId: string, startedAt: number): Promise<ErrorBookmark[]> {
    if (this.events.empty) return [];
    await this.events.settled();
    const rows = await this.events.consistent(async () => {
      const result = await this.db.reader().runAndReadAll(
        `SELECT dataset, project_id, id, timestamp, issue_id, exception_type, exception_value, doc FROM ${this.events.relation([projectId])}
         WHERE dataset = $dataset AND project_id = $project AND replay_id = $replay ORDER BY timestamp, id LIMIT 1000`,
        { dataset, project: projectId, replay: replayId },
      );
      return result.getRowObjectsJS();
    });
    return rows.map((row) => {
      const doc = this.events.document(row);
      const title = doc ? (JSON.parse(doc) as { title?: string }).title : undefined;
      const timestamp = (row.timestamp as Date).toISOString();
      return {
        event_id: String(row.id),
        timestamp,
        offset_ms: Math.max(0, Date.parse(timestamp) - startedAt),
        title: title ?? `${String(row.exception_type)}: ${String(row.exception_value)}`,
        issue_id: String(row.issue_id),
        link: `${this.appUrl}/v1/events/${String(row.id)}`,
      };
    });
  }
}

/** A replay's metadata from its segment rows (in segment order): firsts for scalars, unions for lists. */
function merge(rows: SegmentRow[]): ReplaySummary {
  const first = <K extends keyof SegmentRow>(key: K): SegmentRow[K] | null => rows.find((row) => row[key] !== null && row[key] !== undefined)?.[key] ?? null;
  const union = (key: 'urls' | 'error_ids' | 'trace_ids'): string[] => [...new Set(rows.flatMap((row) => JSON.parse(row[key]) as string[]))];
  const started = Math.min(...rows.map((row) => row.started_at.getTime()));
  const finished = Math.max(...rows.map((row) => row.finished_at.getTime()));
  const userId = first('user_id');
  const userEmail = first('user_email');
  return {
    id: rows[0].replay_id,
    project_id: rows[0].project_id,
    started_at: new Date(started).toISOString(),
    finished_at: new Date(finished).toISOString(),
    duration_ms: finished - started,
    segment_count: rows.length,
    event_count: rows.reduce((sum, row) => sum + row.event_count, 0),
    size_bytes: rows.reduce((sum, row) => sum + Number(row.stored_bytes), 0),
    raw_bytes: rows.reduce((sum, row) => sum + Number(row.raw_bytes), 0),
    environment: first('environment'),
    release: first('release'),
    user: userId !== null || userEmail !== null ? { ...(userId !== null && { id: userId }), ...(userEmail !== null && { email: userEmail }) } : null,
    urls: union('urls'),
    error_ids: union('error_ids'),
    trace_ids: union('trace_ids'),
  };
}
