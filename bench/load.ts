// Bulk load for the reads: N events and N spans written straight into a fresh data directory's
// DuckDB file with INSERT ... SELECT over range(), before the service starts on it (loading
// millions through the API would take hours at today's ingest rate).
//
// The rows are shaped like real ones: every stored document is cut from a document the real
// pipeline made (validation processor, grouping, toEventDocument / toSpanDocument) out of the same
// realistic bodies the events and spans benchmarks send, and only the per-row fields (ids, times,
// environment, user, tags, trace id) are spliced in by SQL. Events: the 200 errors over 3 releases
// (so ~200 issues), 4 environments, timestamps spread over the last 30 days in arrival order, ids
// UUIDv7 from the time of receipt as the service assigns them, 30% carrying the id of a loaded
// trace. Spans: N/12.5 traces of 5-20 spans (a tree: each span's parent is an earlier one), 4
// services. The issues table is then derived from the events (count, first/last seen and release).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Item } from '../src/engine/item.js';
import type { ErrorEvent } from '../src/records/event.js';
import { toEventDocument } from '../src/records/event-document.js';
import { DocStore } from '../exporters/duckdb/docs.js';
import { DUCKDB_MIGRATIONS, moveSpanDocuments } from '../exporters/duckdb/migrations.js';
import { migrate } from '../extensions/duckdb/migrate.js';
import { toSpanDocument } from '../src/records/span-document.js';
import type { Span } from '../src/records/span.js';
import { validationConfigSchema } from '../processors/validation/config.js';
import { EventValidationProcessor } from '../processors/validation/processor.js';
import { SpanValidationProcessor } from '../src/records/span-validation/processor.js';
import { groupEvent } from '../processors/grouping/processor.js';
import { errorTemplates, eventBody, RELEASES, ROUTES, BROWSERS, REGIONS, rng } from './payloads.js';
import { benchDatabase } from './extensions.js';

const DATASET = 'live';
const PROJECT = 'default';
const DAY_MS = 24 * 3600 * 1000;
/** Rows per INSERT transaction. */
const CHUNK = 250_000;
const DOC_BATCH = 50_000;
/** Average spans per trace (5..20). */
export const SPANS_PER_TRACE = 12.5;

// Markers the template documents carry where per-row values go (all valid input values).
const M = {
  id: '01234567-89ab-7cde-8f01-23456789abcd',
  ts: '2001-01-01T01:01:01.001Z',
  received: '2002-02-02T02:02:02.002Z',
  env: 'envmarker',
  user: 'usermarker',
  tags: '{"tagsmarker":"x"}',
  trace: 'tracemarker',
  spanTrace: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  spanId: 'bbbbbbbbbbbbbbbb',
  parent: 'cccccccccccccccc',
  startNs: '1111111111111000000',
  endNs: '1111111111333000000',
  startMs: '1111111111111',
  endMs: '1111111111333',
  duration: '222',
};

/** Splits a template document at its markers: parts[0] m0 parts[1] m1 ... parts[n]. */
function split(doc: string, markers: Record<string, string>): { parts: string[]; names: string[] } {
  const entries = Object.entries(markers).sort((a, b) => b[1].length - a[1].length);
  const pattern = new RegExp(entries.map(([, v]) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const parts: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const match of doc.matchAll(pattern)) {
    parts.push(doc.slice(last, match.index));
    names.push(entries.find(([, v]) => v === match[0])?.[0] as string);
    last = (match.index as number) + match[0].length;
  }
  parts.push(doc.slice(last));
  return { parts, names };
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

interface EventTemplate {
  issueId: string;
  groupingHash: string;
  title: string;
  culprit: string;
  type: string;
  value: string;
  level: string;
  message: string;
  release: string;
  parts: string[];
  names: string[];
}

/** 600 documents (200 errors x 3 releases) made by the real validation and grouping. */
function eventTemplates(): EventTemplate[] {
  const config = validationConfigSchema.parse({});
  const validation = new EventValidationProcessor(config);
  const random = rng(11);
  const out: EventTemplate[] = [];
  for (const template of errorTemplates()) {
    RELEASES.forEach((release, r) => {
      const body = eventBody(template, r, random) as Record<string, unknown> & { user: Record<string, string> };
      Object.assign(body, { id: M.id, timestamp: M.ts, environment: M.env, tags: { tagsmarker: 'x' }, trace_id: M.trace });
      body.user = { id: M.user, email: `${M.user}@example.com` };
      const item: Item = { data: body, tenant: { orgId: 'default', projectId: PROJECT, dataset: DATASET }, receivedAt: Date.parse(M.received), size: 0 };
      validation.process([item]);
      if (item.outcome) throw new Error(`template event rejected: ${JSON.stringify(item.outcome)}`);
      groupEvent(item as Item<ErrorEvent>);
      const event = item.data as ErrorEvent;
      const doc = JSON.stringify(toEventDocument(event));
      out.push({
        issueId: event.issue_id as string,
        groupingHash: event.grouping_hash as string,
        title: event.title as string,
        culprit: event.culprit as string,
        type: event.exception.type,
        value: event.exception.value,
        level: event.level,
        message: event.message ?? '',
        release,
        ...split(doc, { id: M.id, ts: M.ts, received: M.received, env: M.env, user: M.user, tags: M.tags, trace: M.trace }),
      });
    });
  }
  const shape = out[0].names.join(',');
  for (const t of out) if (t.names.join(',') !== shape) throw new Error(`event templates differ in shape: ${t.names} vs ${shape}`);
  return out;
}

interface SpanTemplate {
  name: string;
  service: string;
  kind: string;
  parts: string[];
  names: string[];
}

const SERVICES = ['checkout-api', 'catalog-api', 'orders-worker', 'gateway'];

/** 12 span documents (root / db / http x 4 services) made by the real span validation. */
function spanTemplates(): SpanTemplate[] {
  const config = validationConfigSchema.parse({});
  const validation = new SpanValidationProcessor(config);
  const out: SpanTemplate[] = [];
  const roles = [
    {
      name: 'GET /checkout',
      kind: 'server',
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/checkout',
        'url.path': '/checkout',
        'url.scheme': 'https',
        'server.address': 'api.shop.example.com',
        'server.port': 443,
        'http.response.status_code': 200,
        'user_agent.original': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
        'client.address': '10.1.2.3',
        'network.protocol.version': '1.1',
      },
    },
    {
      name: 'SELECT shop.orders',
      kind: 'client',
      attributes: {
        'db.system': 'postgresql',
        'db.namespace': 'shop',
        'db.operation.name': 'SELECT',
        'db.collection.name': 'orders',
        'db.query.text':
          'SELECT id, status, total_cents, currency, updated_at FROM orders WHERE customer_id = $1 AND status = ANY($2) ORDER BY updated_at DESC LIMIT 20',
        'server.address': 'orders-db.internal',
        'server.port': 5432,
        'db.response.returned_rows': 7,
        'network.peer.address': '10.2.0.17',
        'thread.id': 3,
      },
    },
    {
      name: 'POST pricing-svc',
      kind: 'client',
      attributes: {
        'http.request.method': 'POST',
        'url.full': 'http://pricing-svc.internal:8080/v2/quote?currency=EUR&items=3',
        'server.address': 'pricing-svc.internal',
        'server.port': 8080,
        'http.response.status_code': 200,
        'http.request.body.size': 812,
        'http.response.body.size': 4310,
        'network.protocol.name': 'http',
        'rpc.retries': 0,
        'cache.hit': true,
      },
    },
  ];
  for (const role of roles) {
    for (const service of SERVICES) {
      const input = {
        trace_id: M.spanTrace,
        span_id: M.spanId,
        parent_span_id: M.parent,
        name: role.name,
        start_time: BigInt(M.startNs),
        end_time: BigInt(M.endNs),
        kind: role.kind,
        status: 'unset',
        attributes: role.attributes,
        resource_attributes: {
          'service.name': service,
          'service.version': '5.2.1',
          'service.instance.id': `${service}-7f9c4d-1a2b3`,
          'deployment.environment.name': 'production',
          'host.name': 'ip-10-0-3-17.eu-west-1.compute.internal',
          'process.pid': 4242,
          'process.runtime.name': 'nodejs',
          'process.runtime.version': '20.19.0',
          'telemetry.sdk.language': 'nodejs',
          'telemetry.sdk.name': 'opentelemetry',
          'telemetry.sdk.version': '2.0.1',
        },
        scope: { name: '@opentelemetry/instrumentation-http', version: '0.57.0' },
      };
      const item: Item = { data: input, tenant: { orgId: 'default', projectId: PROJECT, dataset: DATASET }, receivedAt: Date.now(), size: 0 };
      validation.process([item]);
      if (item.outcome) throw new Error(`template span rejected: ${JSON.stringify(item.outcome)}`);
      const span = item.data as Span;
      const doc = JSON.stringify(toSpanDocument(span));
      out.push({
        name: role.name,
        service: span.service_name,
        kind: span.kind,
        ...split(doc, {
          spanTrace: M.spanTrace,
          spanId: M.spanId,
          parent: M.parent,
          startNs: M.startNs,
          endNs: M.endNs,
          startMs: M.startMs,
          endMs: M.endMs,
          duration: M.duration,
        }),
      });
    }
  }
  const shape = out[0].names.join(',');
  for (const t of out) if (t.names.join(',') !== shape) throw new Error(`span templates differ in shape: ${t.names} vs ${shape}`);
  return out;
}

/** `p0 || v0 || p1 || ...` with each marker name mapped to an SQL expression. */
function concat(names: string[], values: Record<string, string>, partColumn: (i: number) => string): string {
  const pieces: string[] = [];
  names.forEach((name, i) => pieces.push(partColumn(i), values[name]));
  pieces.push(partColumn(names.length));
  return pieces.join(' || ');
}

async function createTemplateTable(
  c: DuckDBConnection,
  table: string,
  columns: Record<string, string>,
  partCount: number,
  rows: Array<{ values: string[]; parts: string[] }>,
): Promise<void> {
  const defs = [...Object.entries(columns).map(([n, t]) => `${n} ${t}`), ...Array.from({ length: partCount }, (_, i) => `p${i} VARCHAR`)];
  await c.run(`CREATE OR REPLACE TEMP TABLE ${table} (${defs.join(', ')})`);
  const appender = await c.createAppender(table, 'main', 'temp');
  for (const row of rows) {
    row.values.forEach((v, i) => {
      if (Object.values(columns)[i] === 'INTEGER') appender.appendInteger(Number(v));
      else appender.appendVarchar(v);
    });
    for (const p of row.parts) appender.appendVarchar(p);
    appender.endRow();
  }
  appender.flushSync();
  appender.closeSync();
}

export interface LoadResult {
  events: number;
  spans: number;
  traces: number;
  issues: number;
  seconds: number;
  fileBytes: number;
}

export interface LoadOptions {
  /**
   * Only the newest this many events, and the spans of the newest this many / 12.5 traces, get a
   * document in the DocStore (all of them by default). At 10M rows the documents alone would take
   * ~150 GB and most of an hour to write; the large mode (large.ts) reads the newest rows' pages
   * and looks up documents of the rows that have one.
   */
  documents?: number;
}

/** Writes `events` events and about `spans` spans into the data directory's DuckDB file. */
export async function bulkLoad(
  dataDir: string,
  events: number,
  spans: number,
  log: (line: string) => void = () => undefined,
  now = Date.now(),
  options: LoadOptions = {},
): Promise<Omit<LoadResult, 'fileBytes'>> {
  const started = performance.now();
  const db = await benchDatabase(dataDir, ['issues']);
  const docs = DocStore.open(dataDir);
  await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
  const eventTpl = eventTemplates();
  const spanTpl = spanTemplates();
  const traces = Math.max(1, Math.round(spans / SPANS_PER_TRACE));
  const windowMs = 30 * DAY_MS - 3600_000; // the last 30 days (less an hour of slack for retention's day boundary)
  const startMs = now - windowMs;
  // Rows numbered from here on (events) and traces from here on (spans) get their documents.
  const firstEventDoc = Math.max(0, events - (options.documents ?? events));
  const firstTraceDoc = Math.max(0, traces - Math.round((options.documents ?? spans) / SPANS_PER_TRACE));
  try {
    await db.write(async (c) => {
      await createTemplateTable(
        c,
        'bench_event_tpl',
        { t: 'INTEGER', issue_id: 'VARCHAR', release: 'VARCHAR', level: 'VARCHAR', type: 'VARCHAR', value: 'VARCHAR', message: 'VARCHAR' },
        eventTpl[0].parts.length,
        eventTpl.map((t, i) => ({ values: [String(i), t.issueId, t.release, t.level, t.type, t.value, t.message], parts: t.parts })),
      );
      await createTemplateTable(
        c,
        'bench_span_tpl',
        { t: 'INTEGER', name: 'VARCHAR', service: 'VARCHAR', kind: 'VARCHAR' },
        spanTpl[0].parts.length,
        spanTpl.map((t, i) => ({ values: [String(i), t.name, t.service, t.kind], parts: t.parts })),
      );
      await c.run(
        `CREATE OR REPLACE TEMP TABLE bench_issue_info AS SELECT * FROM (VALUES ${[...new Map(eventTpl.map((t) => [t.issueId, t])).values()]
          .map((t) => `(${[t.issueId, t.groupingHash, t.title, t.culprit, t.type, t.value, t.level].map(sqlString).join(', ')})`)
          .join(', ')}) AS v(issue_id, grouping_hash, title, culprit, type, value, level)`,
      );
    });

    // --- events ---
    // u(i, k): a uniform number in [0, 1) from row i, stream k.
    const u = (k: number) => `((hash(i * 8 + ${k}) % 1000003)::DOUBLE / 1000003)`;
    const envExpr = `CASE WHEN ${u(2)} < 0.7 THEN 'production' WHEN ${u(2)} < 0.9 THEN 'staging' WHEN ${u(2)} < 0.97 THEN 'development' ELSE 'canary' END`;
    // Issues are skewed (a few errors make most events); releases follow time (the newest release last).
    const issueExpr = `least(199, floor(200 * pow(${u(1)}, 2.2)))::INTEGER`;
    const releaseExpr = `greatest(0, least(2, floor(3 * i / ${events}.0 + (${u(3)} - 0.5) * 0.4)))::INTEGER`;
    const list = (values: readonly string[], k: number) => `[${values.map(sqlString).join(', ')}][1 + (hash(i * 8 + ${k}) % ${values.length})::INTEGER]`;
    const tagsExpr = `json_object('route', ${list(ROUTES, 4)}, 'browser', ${list(BROWSERS, 5)}, 'os', ${list(['Windows 11', 'macOS 15.1', 'iOS 18.1', 'Android 15', 'Ubuntu 24.04'], 6)}, 'region', ${list(REGIONS, 7)}, 'customer_tier', ${list(['free', 'plus', 'business'], 4)}, 'feature_flag_new_checkout', ${list(['true', 'false'], 5)})`;
    const eventDoc = concat(
      eventTpl[0].names,
      { id: 'r.id', ts: 'r.ts_iso', received: 'r.received_iso', env: 'r.environment', user: 'r.user_id', tags: 'r.tags', trace: 'r.trace_id' },
      (i) => `tpl.p${i}`,
    );
    for (let lo = 0; lo < events; lo += CHUNK) {
      const hi = Math.min(events, lo + CHUNK);
      // Rows with their documents go to a temporary table first (on the writer connection, so no
      // blocks of the database file are spent on them): the documents then move to the DocStore,
      // where the duckdb exporter keeps them, and the rows into events without them.
      await db.write(async (c) => {
        await c.run(`
          CREATE OR REPLACE TEMP TABLE bench_event_chunk AS
          WITH base AS (
            SELECT i,
              ${issueExpr} * 3 + ${releaseExpr} AS t,
              (${startMs} + i * ${windowMs / events} + (${u(0)} - 0.5) * 120000)::BIGINT AS ts_ms,
              ${envExpr} AS environment,
              'user-' || (hash(i * 8 + 6) % 50000)::VARCHAR AS user_id,
              ${tagsExpr} AS tags,
              CASE WHEN ${u(5)} < 0.3 THEN md5('trace-' || (hash(i * 8 + 7) % ${traces})::VARCHAR) ELSE md5('event-trace-' || i::VARCHAR) END AS trace_id,
              md5('event-id-' || i::VARCHAR) AS rnd
            FROM range(${lo}, ${hi}) AS g(i)
          ), r AS (
            SELECT *, ts_ms + 5 + (hash(i * 8 + 1) % 400)::BIGINT AS received_ms FROM base
          ), r2 AS (
            SELECT *,
              strftime(make_timestamp(ts_ms * 1000), '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS ts_iso,
              strftime(make_timestamp(received_ms * 1000), '%Y-%m-%dT%H:%M:%S.%g') || 'Z' AS received_iso,
              lpad(lower(hex(received_ms)), 12, '0') AS ms_hex
            FROM r
          ), r3 AS (
            SELECT *, substr(ms_hex, 1, 8) || '-' || substr(ms_hex, 9, 4) || '-7' || substr(rnd, 1, 3) || '-' || ['8', '9', 'a', 'b'][1 + (hash(i * 8 + 2) % 4)::INTEGER] || substr(rnd, 4, 3) || '-' || substr(rnd, 7, 12) AS id
            FROM r2
          )
          SELECT '${DATASET}' AS dataset, '${PROJECT}' AS project_id, r.id, make_timestamp(r.ts_ms * 1000) AS timestamp, make_timestamp(r.received_ms * 1000) AS received_at,
            tpl.issue_id, r.environment, tpl.release, tpl.level, tpl.type AS exception_type, tpl.value AS exception_value, tpl.message, r.user_id,
            r.user_id || '@example.com' AS user_email, r.trace_id, NULL::VARCHAR AS replay_id, r.tags,
            CASE WHEN r.i >= ${firstEventDoc} THEN ${eventDoc} ELSE '' END AS doc, r.i - ${lo} AS n
          FROM r3 AS r JOIN bench_event_tpl AS tpl ON tpl.t = r.t
          `);
        for (let at = Math.max(0, firstEventDoc - lo); at < hi - lo; at += DOC_BATCH) {
          // (n, not rowid: a temporary table's row ids are not 0-based inside a transaction)
          const rows = (await c.runAndReadAll(`SELECT id, doc FROM bench_event_chunk WHERE n >= ${at} AND n < ${at + DOC_BATCH}`)).getRows();
          await docs.put(rows.map(([id, doc]) => ({ kind: 'events', key: [DATASET, PROJECT, String(id)], doc: String(doc) })));
        }
        await c.run(`INSERT INTO events BY NAME SELECT * EXCLUDE (n) REPLACE ('' AS doc) FROM bench_event_chunk; DROP TABLE bench_event_chunk`);
      });
      log(`  events ${hi.toLocaleString('en-US')} / ${events.toLocaleString('en-US')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    await db.write(async (c) => {
      await c.run(`
        INSERT INTO issues (id, dataset, project_id, grouping_hash, title, culprit, type, value, level, status, first_seen, last_seen, count, first_release, last_release, status_changed_at)
        SELECT e.issue_id, '${DATASET}', '${PROJECT}', it.grouping_hash, it.title, it.culprit, it.type, it.value, it.level, 'unresolved',
          min(e.timestamp), max(e.timestamp), count(*), arg_min(e.release, e.timestamp), arg_max(e.release, e.timestamp), NULL
        FROM events e JOIN bench_issue_info it ON it.issue_id = e.issue_id
        WHERE e.dataset = '${DATASET}' AND e.project_id = '${PROJECT}'
        GROUP BY e.issue_id, it.grouping_hash, it.title, it.culprit, it.type, it.value, it.level`);
    });

    // --- spans ---
    const spanDoc = concat(
      spanTpl[0].names,
      {
        spanTrace: 's.trace_id',
        spanId: 's.span_id',
        parent: 's.parent_span_id',
        startNs: '(s.start_ms * 1000000)::VARCHAR',
        endNs: '(s.end_ms * 1000000)::VARCHAR',
        startMs: 's.start_ms::VARCHAR',
        endMs: 's.end_ms::VARCHAR',
        duration: '(s.end_ms - s.start_ms)::VARCHAR',
      },
      (i) => `tpl.p${i}`,
    );
    const traceChunk = Math.max(1, Math.round(CHUNK / SPANS_PER_TRACE));
    let spanCount = 0;
    for (let lo = 0; lo < traces; lo += traceChunk) {
      const hi = Math.min(traces, lo + traceChunk);
      await db.write(async (c) => {
        const result = await c.runAndReadAll(`
          INSERT INTO spans (dataset, project_id, trace_id, span_id, parent_span_id, name, service_name, start_ns, end_ns, status, kind, received_at, doc)
          WITH s0 AS (
            SELECT k, j,
              md5('trace-' || k::VARCHAR) AS trace_id,
              substr(md5('span-' || k::VARCHAR || '-' || j::VARCHAR), 1, 16) AS span_id,
              CASE WHEN j = 0 THEN '' ELSE substr(md5('span-' || k::VARCHAR || '-' || ((j - 1) // 3)::VARCHAR), 1, 16) END AS parent_span_id,
              (${startMs} + k * ${windowMs / traces})::BIGINT + j * 3 AS start_ms,
              CASE WHEN j = 0 THEN 0 ELSE 1 + ((k + j) % 2)::INTEGER END AS role
            FROM range(${lo}, ${hi}) AS t(k), range(5 + (hash(k) % 16)::INTEGER) AS g(j)
          ), s AS (
            SELECT *, start_ms + CASE WHEN j = 0 THEN 120 ELSE 1 + (hash(k * 31 + j) % 60)::BIGINT END AS end_ms FROM s0
          )
          SELECT '${DATASET}', '${PROJECT}', s.trace_id, s.span_id, s.parent_span_id, tpl.name, tpl.service, s.start_ms * 1000000, s.end_ms * 1000000,
            CASE WHEN hash(s.k * 17 + s.j) % 50 = 0 THEN 'error' ELSE 'unset' END, tpl.kind, make_timestamp((s.end_ms + 2000) * 1000),
            CASE WHEN s.k >= ${firstTraceDoc} THEN ${spanDoc} ELSE '' END
          FROM s JOIN bench_span_tpl AS tpl ON tpl.t = s.role * 4 + (s.k % 4)::INTEGER
          `);
        spanCount += Number(result.getRows()[0]?.[0] ?? 0);
      });
      log(`  spans ${spanCount.toLocaleString('en-US')} / ~${spans.toLocaleString('en-US')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    // The documents move to the DocStore, where the duckdb exporter keeps them.
    await db.write((c) => moveSpanDocuments(c, docs));
    log(`  span documents in the DocStore (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    const issues = await db.reader().runAndReadAll(`SELECT count(*) FROM issues WHERE dataset = '${DATASET}'`);
    return { events, spans: spanCount, traces, issues: Number(issues.getRows()[0][0]), seconds: (performance.now() - started) / 1000 };
  } finally {
    await db.close();
    await docs.close();
  }
}
