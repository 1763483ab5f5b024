// Reads one trace: its spans from every project the reader reaches (a distributed trace crosses
// services, and so may cross projects), ordered by start, assembled into a tree, with the ids of
// the error events that carry the trace id.
import type { DuckDBValue } from '@duckdb/node-api';
import type { Dataset } from '../engine/item.js';
import type { Database } from './database.js';
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
    // Rows read without their document ('') take it from their source (the duckdb exporter's DocStore).
    for (const row of shown) if (!row.doc) row.doc = this.spans.document({ ...row, dataset, trace_id: traceId }) ?? '{}';

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
