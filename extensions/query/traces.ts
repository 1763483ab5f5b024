// Reads one trace: its spans from every project the reader reaches (a distributed trace crosses
// services, and so may cross projects), ordered by start, assembled into a tree, with the ids of
// the error events that carry the trace id.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import { spanScope } from '../../src/records/span-scope.js';
import type { Span } from '../../src/records/span.js';
import { decodeCursor, encodeCursor } from '../../src/http/cursor.js';
import { isDocumentRef } from '../../src/engine/read-source.js';
import type { Database } from '../duckdb/database.js';
import type { MergedSource } from './read-sources.js';

/** Most spans one trace response carries; past it, the rest are read with `spans_offset`. */
export const MAX_TRACE_SPANS = 10_000;

/** Which spans of a trace a response carries, in start order. */
export interface SpanPage {
  offset: number;
  limit: number;
}

export interface TraceTreeNode {
  span_id: string;
  name: string;
  service_name: string;
  start_time: number;
  duration_ms: number;
  status: string;
  /** Set on a span whose parent never arrived: it is listed at the top instead of being lost. */
  orphan?: true;
  children: TraceTreeNode[];
}

export interface TraceFilter {
  dataset: Dataset;
  projectId: string;
  /** The root span's resource says this environment / release (as error events made from spans get them). */
  environment?: string;
  release?: string;
  /** Traces with a span of this service. */
  service?: string;
  /** Inclusive bounds on the trace's duration, in milliseconds. */
  minDurationMs?: number;
  maxDurationMs?: number;
  /** error: traces with a span whose status is error; ok: traces without. */
  status?: 'ok' | 'error';
  /** Traces that started at or after / before these times (epoch ms). */
  start?: number;
  end?: number;
}

export interface TraceSummary {
  trace_id: string;
  project_id: string;
  root_name: string;
  root_service: string;
  start_time: string;
  duration_ms: number;
  span_count: number;
  error_span_count: number;
  services: string[];
  environment: string | null;
  release: string | null;
}

/** Candidate traces read per round of a filtered page, and the rounds at most: a page's work is bounded. */
const SCAN_BATCH = 200;
const SCAN_ROUNDS = 10;

interface SpanRow {
  /** NULL outside the page asked for (and '' where the source keeps documents elsewhere). */
  doc: string | null;
  project_id: string;
  span_id: string;
  parent_span_id: string;
  name: string;
  service_name: string;
  start_ns: bigint;
  end_ns: bigint;
  status: string;
}

export class TraceStore {
  constructor(
    private readonly db: Database,
    private readonly spans: MergedSource,
    private readonly events: MergedSource,
  ) {}

  /**
   * The trace as a JSON document, or undefined when none of its spans is visible. Its head (count,
   * duration, services) covers every span; `spans` and `tree` hold the page `page` selects in start
   * order, with `truncated` set when spans follow it.
   */
  async get(dataset: Dataset, projectIds: string[], traceId: string, page: SpanPage = { offset: 0, limit: MAX_TRACE_SPANS }): Promise<string | undefined> {
    if (projectIds.length === 0) return undefined;
    await Promise.all([this.spans.settled(), this.events.settled()]); // acknowledged items are readable
    const params: Record<string, DuckDBValue> = { dataset, trace: traceId };
    const projects = projectIds.map((id, i) => ((params[`p${i}`] = id), `$p${i}`)).join(', ');
    const [spanResult, eventResult] = await Promise.all([
      this.spans.consistent(() =>
        this.db.reader().runAndReadAll(
          // trace_id alone first, so DuckDB takes the trace_id index (with the other predicates beside
          // it, it scanned the whole table; figures: bench/README.md, "Why the code is shaped this way").
          `WITH t AS MATERIALIZED (SELECT * FROM ${this.spans.relation(projectIds)} WHERE trace_id = $trace)
           SELECT CASE WHEN row_number() OVER (ORDER BY start_ns, span_id) BETWEEN $first + 1 AND $last THEN doc END AS doc,
             project_id, span_id, parent_span_id, name, service_name, start_ns, end_ns, status FROM t
           WHERE dataset = $dataset AND project_id IN (${projects}) ORDER BY start_ns, span_id`,
          { ...params, first: page.offset, last: page.offset + page.limit },
        ),
      ),
      this.errorEventIds(projectIds, params, projects),
    ]);
    const rows = spanResult.getRowObjectsJS() as unknown as SpanRow[];
    if (rows.length === 0) return undefined;
    const shown = rows.slice(page.offset, page.offset + page.limit);
    // Rows read without their document ('' or a reference) take it from their source (the duckdb exporter's DocStore).
    for (const row of shown) if (!row.doc || isDocumentRef(row.doc)) row.doc = this.spans.document({ ...row, dataset, trace_id: traceId }) ?? '{}';

    const start = rows.reduce((min, r) => (r.start_ns < min ? r.start_ns : min), rows[0].start_ns);
    const end = rows.reduce((max, r) => (r.end_ns > max ? r.end_ns : max), rows[0].end_ns);
    const root = rows.find((r) => r.parent_span_id === '');
    const services: string[] = [];
    for (const row of rows) if (!services.includes(row.service_name)) services.push(row.service_name);
    const head = {
      trace_id: traceId,
      root_service: (root ?? rows[0]).service_name,
      root_span_id: root?.span_id ?? null,
      duration_ms: Math.round(Number(end - start) / 1e6),
      start_time: Number(start / 1_000_000n),
      span_count: rows.length,
      services,
      error_event_ids: eventResult,
      spans_offset: page.offset,
      spans_returned: shown.length,
      truncated: page.offset + shown.length < rows.length,
      next_spans_offset: page.offset + shown.length < rows.length ? page.offset + shown.length : null,
    };
    const { tree, orphans } = buildTree(shown, new Set(rows.map((r) => r.span_id)));
    // Spans are stored as JSON documents: splice them in rather than parse and re-serialize. The
    // tree is written without recursion: a parent chain thousands of spans deep is valid OTLP.
    const json = JSON.stringify({ ...head, orphan_span_ids: orphans });
    return `${json.slice(0, -1)},"tree":${treeJson(tree)},"spans":[${shown.map((r) => r.doc).join(',')}]}`;
  }

  /**
   * Traces newest first (by their first span's start, then trace id), keyset-paginated with the
   * events' cursor. Environment and release live in the root span's resource (the spans table has
   * no column for them), so with those filters candidates are read in bounded rounds: a page then
   * may hold fewer than `limit` traces while `nextCursor` says more may follow.
   */
  async list(filter: TraceFilter, limit: number, cursor?: string): Promise<{ data: TraceSummary[]; nextCursor: string | null }> {
    let after = cursor === undefined ? undefined : decodeCursor(cursor);
    if (this.spans.empty) return { data: [], nextCursor: null };
    await this.spans.settled();
    const byScope = filter.environment !== undefined || filter.release !== undefined;
    const data: TraceSummary[] = [];
    for (let round = 0; round < (byScope ? SCAN_ROUNDS : 1); round++) {
      const want = byScope ? SCAN_BATCH : limit;
      const found = await this.candidates(filter, want + 1, after);
      const batch = found.slice(0, want);
      for (const [i, trace] of batch.entries()) {
        if (!byScope || this.scopeMatches(filter, trace)) data.push(trace.summary);
        after = { micros: trace.micros, id: trace.summary.trace_id };
        if (data.length === limit) {
          const more = i < batch.length - 1 || found.length > want;
          return { data, nextCursor: more ? encodeCursor(after) : null };
        }
      }
      if (found.length <= want) return { data, nextCursor: null };
    }
    return { data, nextCursor: after ? encodeCursor(after) : null };
  }

  private scopeMatches(filter: TraceFilter, trace: { summary: TraceSummary }): boolean {
    const { environment, release } = trace.summary;
    return (filter.environment === undefined || environment === filter.environment) && (filter.release === undefined || release === filter.release);
  }

  /** One round of traces matching the column filters, with the root span's environment and release. */
  private async candidates(
    filter: TraceFilter,
    limit: number,
    after: { micros: bigint; id: string } | undefined,
  ): Promise<Array<{ micros: bigint; summary: TraceSummary }>> {
    const params: Record<string, DuckDBValue> = { dataset: filter.dataset, project: filter.projectId, limit };
    const where = ['dataset = $dataset', 'project_id = $project'];
    const having: string[] = [];
    if (filter.start !== undefined) {
      // A trace's spans start within minutes of each other: its first span is bounded by the filter.
      where.push('start_ns >= $start_ns');
      params.start_ns = BigInt(filter.start) * 1_000_000n;
    }
    if (filter.end !== undefined) {
      having.push('min(start_ns) < $end_ns');
      params.end_ns = BigInt(filter.end) * 1_000_000n;
    }
    if (filter.service !== undefined) {
      having.push('bool_or(service_name = $service)');
      params.service = filter.service;
    }
    if (filter.minDurationMs !== undefined) {
      having.push('max(end_ns) - min(start_ns) >= $min_ns');
      params.min_ns = BigInt(Math.round(filter.minDurationMs * 1e6));
    }
    if (filter.maxDurationMs !== undefined) {
      having.push('max(end_ns) - min(start_ns) <= $max_ns');
      params.max_ns = BigInt(Math.round(filter.maxDurationMs * 1e6));
    }
    if (filter.status !== undefined) having.push(`${filter.status === 'ok' ? 'NOT ' : ''}bool_or(status = 'error')`);
    if (after) {
      having.push('(min(start_ns) // 1000 < $cursor_us OR (min(start_ns) // 1000 = $cursor_us AND trace_id < $cursor_id))');
      params.cursor_us = after.micros;
      params.cursor_id = after.id;
    }
    const result = await this.spans.consistent(() =>
      this.db.reader().runAndReadAll(
        `SELECT trace_id, min(start_ns) // 1000 AS micros, max(end_ns) - min(start_ns) AS duration_ns, count(*) AS span_count,
           count(*) FILTER (WHERE status = 'error') AS error_spans, list(DISTINCT service_name ORDER BY service_name) AS services,
           arg_min(span_id, (parent_span_id <> '', start_ns)) AS root_span, arg_min(name, (parent_span_id <> '', start_ns)) AS root_name,
           arg_min(service_name, (parent_span_id <> '', start_ns)) AS root_service, arg_min(start_ns, (parent_span_id <> '', start_ns)) AS root_start,
           arg_min(received_at, (parent_span_id <> '', start_ns)) AS root_received, arg_min(doc, (parent_span_id <> '', start_ns)) AS root_doc
         FROM ${this.spans.relation([filter.projectId])} WHERE ${where.join(' AND ')}
         GROUP BY trace_id ${having.length ? `HAVING ${having.join(' AND ')}` : ''}
         ORDER BY min(start_ns) // 1000 DESC, trace_id DESC LIMIT $limit`,
        params,
      ),
    );
    return result.getRowObjectsJS().map((row) => {
      const traceId = String(row.trace_id);
      const doc = this.spans.document({
        dataset: filter.dataset,
        project_id: filter.projectId,
        trace_id: traceId,
        span_id: String(row.root_span),
        start_ns: row.root_start,
        received_at: row.root_received,
        doc: String(row.root_doc ?? ''),
      });
      const scope = doc ? spanScope(JSON.parse(doc) as Pick<Span, 'service_name' | 'resource_attributes'>) : undefined;
      const micros = BigInt(row.micros as bigint);
      return {
        micros,
        summary: {
          trace_id: traceId,
          project_id: filter.projectId,
          root_name: String(row.root_name),
          root_service: String(row.root_service),
          start_time: new Date(Number(micros / 1000n)).toISOString(),
          duration_ms: Number(row.duration_ns) / 1e6,
          span_count: Number(row.span_count),
          error_span_count: Number(row.error_spans),
          services: (row.services as string[]).map(String),
          environment: scope?.environment ?? null,
          release: scope?.release ?? null,
        },
      };
    });
  }

  /** The error events that carry the trace id. `params` and `projects` are those of the span query. */
  private async errorEventIds(projectIds: string[], params: Record<string, DuckDBValue>, projects: string): Promise<string[]> {
    if (this.events.empty) return [];
    const result = await this.events.consistent(() =>
      this.db.reader().runAndReadAll(
        `WITH t AS MATERIALIZED (SELECT dataset, project_id, id, timestamp FROM ${this.events.relation(projectIds)} WHERE trace_id = $trace)
         SELECT id FROM t WHERE dataset = $dataset AND project_id IN (${projects}) ORDER BY timestamp, id`,
        params,
      ),
    );
    return result.getRows().map(([id]) => String(id));
  }
}

/** `tree` nested as JSON, with an explicit stack instead of recursion. */
export function treeJson(roots: TraceTreeNode[]): string {
  const out: string[] = ['['];
  const stack: Array<{ nodes: TraceTreeNode[]; next: number }> = [{ nodes: roots, next: 0 }];
  while (stack.length) {
    const top = stack[stack.length - 1];
    if (top.next >= top.nodes.length) {
      out.push(']');
      stack.pop();
      if (stack.length) out.push('}');
      continue;
    }
    if (top.next > 0) out.push(',');
    const { children, ...fields } = top.nodes[top.next++];
    out.push(JSON.stringify(fields).slice(0, -1), ',"children":[');
    stack.push({ nodes: children, next: 0 });
  }
  return out.join('');
}

/**
 * The tree of the spans shown. A span whose parent is in the trace but not among them (another
 * page) is listed at the top; one whose parent is nowhere in the trace is also an orphan.
 */
function buildTree(rows: SpanRow[], traceSpanIds: Set<string>): { tree: TraceTreeNode[]; orphans: string[] } {
  const nodes = new Map<string, TraceTreeNode>();
  for (const row of rows) {
    nodes.set(row.span_id, {
      span_id: row.span_id,
      name: row.name,
      service_name: row.service_name,
      start_time: Number(row.start_ns / 1_000_000n),
      duration_ms: Number(row.end_ns - row.start_ns) / 1e6,
      status: row.status,
      children: [],
    });
  }
  const tree: TraceTreeNode[] = [];
  const orphans: string[] = [];
  const parentOf = new Map<string, string>();
  // A parent link that would close a cycle (only a broken or hostile sender makes one) is cut.
  const closesCycle = (child: string, parent: string): boolean => {
    for (let at: string | undefined = parent, steps = 0; at !== undefined && steps <= rows.length; at = parentOf.get(at), steps++)
      if (at === child) return true;
    return false;
  };
  for (const row of rows) {
    const node = nodes.get(row.span_id) as TraceTreeNode;
    const parent = row.parent_span_id ? nodes.get(row.parent_span_id) : undefined;
    if (parent && !closesCycle(row.span_id, row.parent_span_id)) {
      parent.children.push(node);
      parentOf.set(row.span_id, row.parent_span_id);
    } else {
      if (row.parent_span_id && !traceSpanIds.has(row.parent_span_id)) {
        node.orphan = true;
        orphans.push(row.span_id);
      }
      tree.push(node);
    }
  }
  return { tree, orphans };
}
