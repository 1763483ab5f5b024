// Reads: after N events and N spans are loaded through the service's ingest routes (load.ts),
// each read endpoint of the service child is timed over sequential requests on one keep-alive
// connection. The baseline: the service is stopped, its DuckDB file opened read-only with
// @duckdb/node-api, and the SELECT the query layer runs for each endpoint (extensions/query/
// events.ts, traces.ts; the SQL text is kept here) run with the same parameters, so the ratio is
// what the service adds on top of DuckDB (HTTP, auth, routing, documents, response assembly).
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { Samples } from './stats.js';

export interface ReadTiming {
  name: string;
  /** What was requested, for the report. */
  request: string;
  api: { p50: number; p99: number; n: number };
  sql: { p50: number; p99: number; n: number };
  /** API p50 / SQL p50 and API p99 / SQL p99. */
  ratioP50: number;
  ratioP99: number;
  /** Average response size, bytes. */
  responseBytes: number;
  /** Rows the SQL returned on average (a sanity check that the query matched something). */
  rows: number;
}

interface ReadCase {
  name: string;
  request: string;
  /** The n-th API path to request. */
  path: (n: number) => string;
  /** The n-th equivalent SQL run. */
  sql: (reader: () => DuckDBConnection, n: number) => Promise<number>;
  /** Request headers instead of the bearer key (the web app's pages take a session cookie). */
  headers?: Record<string, string>;
}

const EVENT_PAGE_SQL = (where: string) =>
  `SELECT doc, epoch_us(timestamp) AS micros, id FROM events WHERE ${where} ORDER BY timestamp DESC, id DESC LIMIT $limit`;
const BASE_WHERE = 'dataset = $dataset AND project_id = $project';
const TEXT_WHERE = `(exception_type ILIKE $text0 ESCAPE '\\' OR exception_value ILIKE $text0 ESCAPE '\\' OR message ILIKE $text0 ESCAPE '\\')`;
const CURSOR_WHERE = '(timestamp < make_timestamp($cursor_ts::BIGINT) OR (timestamp = make_timestamp($cursor_ts::BIGINT) AND id < $cursor_id))';

function decodeCursor(cursor: string): { micros: bigint; id: string } {
  const [micros, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
  return { micros: BigInt(micros), id };
}

async function rowsOf(connection: DuckDBConnection, sql: string, params: Record<string, DuckDBValue>): Promise<number> {
  const result = await connection.runAndReadAll(sql, params);
  const rows = result.getRows();
  // Touch the documents as the service does when it assembles a page.
  let bytes = 0;
  for (const row of rows) bytes += String(row[0]).length;
  return bytes >= 0 ? rows.length : 0;
}

export interface ReadsOptions {
  baseUrl: string;
  liveKey: string;
  /** The service's data directory (its DuckDB file is opened read-only once it stopped). */
  dataDir: string;
  /** Stops the service: the SQL side runs after it. */
  stopService: () => Promise<void>;
  /** Ids of loaded events and traces (load.ts's sample). */
  eventIds: string[];
  traceIds: string[];
  /** Sequential requests per endpoint (and SQL runs). */
  requests: number;
  /** Pages walked for the deep-page case. */
  deepPages: number;
  /** Longest time spent on one side (API or SQL) of one case once 10 samples are in, seconds: large N makes single queries slow. */
  maxSeconds: number;
  /** Longest time spent walking the cursor, seconds. */
  walkSeconds: number;
  filter: { environment: string; release: string; query: string };
  /** A web app session cookie (`fl_session=…`): adds the issue page to the cases. */
  webCookie?: string;
  log?: (line: string) => void;
}

export async function measureReads(options: ReadsOptions): Promise<ReadTiming[]> {
  const { requests } = options;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(options.baseUrl);
  const get = (path: string, headers: Record<string, string> = { authorization: `Bearer ${options.liveKey}` }) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end();
    });
  const { eventIds, traceIds } = options;
  const issues = await get('/v1/issues?project_id=default');
  if (issues.status !== 200) throw new Error(`GET /v1/issues: ${issues.status} ${issues.body.slice(0, 300)}`);
  const issueIds = (JSON.parse(issues.body) as { data: Array<{ id: string }> }).data.map((i) => i.id);
  if (!eventIds.length || !traceIds.length || !issueIds.length) throw new Error('no ids to read: was anything loaded?');

  // Walk the cursor; the deep case cycles over the cursors of the last 10 pages walked.
  const cursors: string[] = [];
  let cursor: string | null = null;
  const walkStart = performance.now();
  for (let page = 0; page < options.deepPages && performance.now() - walkStart < options.walkSeconds * 1000; page++) {
    const res = await get(`/v1/events?project_id=default${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /v1/events page ${page}: ${res.status} ${res.body.slice(0, 300)}`);
    cursor = (JSON.parse(res.body) as { next_cursor: string | null }).next_cursor;
    if (!cursor) break;
    cursors.push(cursor);
  }
  const walked = cursors.length + 1;
  const deep = cursors.slice(-10);
  if (deep.length === 0) throw new Error('no cursor to walk: is the events table empty?');

  const base = { dataset: 'live', project: 'default' };
  const { environment, release, query } = options.filter;
  const filterQs = `environment=${encodeURIComponent(environment)}&release=${encodeURIComponent(release)}&query=${encodeURIComponent(query)}`;
  const cases: ReadCase[] = [
    {
      name: 'events: first page',
      request: 'GET /v1/events (50 per page)',
      path: () => '/v1/events?project_id=default',
      sql: (r) => rowsOf(r(), EVENT_PAGE_SQL(BASE_WHERE), { ...base, limit: 51 }),
    },
    {
      name: 'events: filtered page',
      request: `GET /v1/events?${decodeURIComponent(filterQs)}`,
      path: () => `/v1/events?project_id=default&${filterQs}`,
      sql: (r) =>
        rowsOf(r(), EVENT_PAGE_SQL(`${BASE_WHERE} AND environment = $environment0 AND release = $release0 AND ${TEXT_WHERE}`), {
          ...base,
          environment0: environment,
          release0: release,
          text0: `%${query}%`,
          limit: 51,
        }),
    },
    {
      name: `events: deep page`,
      request: `GET /v1/events?cursor=… (pages ${walked - deep.length + 1}-${walked} of a ${walked}-page walk)`,
      path: (n) => `/v1/events?project_id=default&cursor=${encodeURIComponent(deep[n % deep.length])}`,
      sql: (r, n) => {
        const after = decodeCursor(deep[n % deep.length]);
        return rowsOf(r(), EVENT_PAGE_SQL(`${BASE_WHERE} AND ${CURSOR_WHERE}`), { ...base, cursor_ts: after.micros, cursor_id: after.id, limit: 51 });
      },
    },
    {
      name: 'issues: first page',
      request: 'GET /v1/issues (by last seen)',
      path: () => '/v1/issues?project_id=default',
      sql: (r) =>
        rowsOf(
          r(),
          'SELECT title, id, last_seen, count FROM issues WHERE dataset = $dataset AND project_id = $project ORDER BY last_seen DESC, id DESC LIMIT $limit',
          { ...base, limit: 51 },
        ),
    },
    {
      name: 'events: one event',
      request: 'GET /v1/events/{id} (random ids)',
      path: (n) => `/v1/events/${eventIds[n % eventIds.length]}`,
      sql: (r, n) =>
        rowsOf(r(), 'SELECT doc FROM events WHERE dataset = $dataset AND id = $id AND project_id IN ($p0) ORDER BY received_at LIMIT 1', {
          dataset: 'live',
          id: eventIds[n % eventIds.length],
          p0: 'default',
        }),
    },
    {
      name: 'traces: one trace',
      request: 'GET /v1/traces/{id} (random ids, 5-20 spans)',
      path: (n) => `/v1/traces/${traceIds[n % traceIds.length]}`,
      sql: async (r, n) => {
        const params = { dataset: 'live', trace: traceIds[n % traceIds.length], p0: 'default' };
        const [spans] = await Promise.all([
          rowsOf(
            r(),
            // The shape extensions/query/traces.ts runs (trace_id alone first, so the trace_id index is
            // taken): with the predicates side by side DuckDB scans the table (0.7 s at 10M spans).
            'WITH t AS MATERIALIZED (SELECT * FROM spans WHERE trace_id = $trace) SELECT doc, span_id, parent_span_id, name, service_name, start_ns, end_ns, status FROM t WHERE dataset = $dataset AND project_id IN ($p0) ORDER BY start_ns, span_id',
            params,
          ),
          rowsOf(
            r(),
            'WITH t AS MATERIALIZED (SELECT dataset, project_id, id, timestamp FROM events WHERE trace_id = $trace) SELECT id FROM t WHERE dataset = $dataset AND project_id IN ($p0) ORDER BY timestamp, id',
            params,
          ),
        ]);
        return spans;
      },
    },
  ];
  if (options.webCookie) {
    cases.push({
      name: 'web: the issue page',
      request: 'GET /issues/{id} (the permalink in a browser: issue, latest event, 24 h chart, tags, older/newer)',
      path: (n) => `/issues/${issueIds[n % issueIds.length]}`,
      headers: { cookie: options.webCookie, accept: 'text/html' },
      sql: (r, n) =>
        rowsOf(
          r(),
          'SELECT doc FROM events WHERE dataset = $dataset AND project_id = $project AND issue_id = $issue ORDER BY timestamp DESC, id DESC LIMIT 1',
          {
            ...base,
            issue: issueIds[n % issueIds.length],
          },
        ),
    });
  }

  // The API side of every case while the service runs.
  const apiSide: Array<{ samples: Samples; bytes: number }> = [];
  const minSamples = Math.min(requests, 10);
  for (const c of cases) {
    const warm = Math.min(3, requests);
    for (let i = 0; i < warm; i++) await get(c.path(i), c.headers);
    const api = new Samples();
    let bytes = 0;
    const started = performance.now();
    for (let i = 0; i < requests && (i < minSamples || performance.now() - started < options.maxSeconds * 1000); i++) {
      const t0 = performance.now();
      const res = await get(c.path(i), c.headers);
      api.add(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${c.request}: ${res.status} ${res.body.slice(0, 300)}`);
      bytes += res.body.length;
    }
    apiSide.push({ samples: api, bytes });
    const a = api.summary();
    options.log?.(`  ${c.name}: API p50 ${a.p50.toFixed(2)} ms p99 ${a.p99.toFixed(2)} ms (n=${a.n})`);
  }
  agent.destroy();

  // The SQL side on the stopped service's file, read-only, two connections (the trace read runs two SELECTs at once).
  await options.stopService();
  const instance = await DuckDBInstance.create(join(options.dataDir, 'faultline.duckdb'), { access_mode: 'READ_ONLY' });
  const connections = [await instance.connect(), await instance.connect()];
  let turn = 0;
  const reader = () => connections[turn++ % connections.length];
  const out: ReadTiming[] = [];
  try {
    for (const [index, c] of cases.entries()) {
      const warm = Math.min(3, requests);
      for (let i = 0; i < warm; i++) await c.sql(reader, i);
      const sql = new Samples();
      let rows = 0;
      const started = performance.now();
      for (let i = 0; i < requests && (i < minSamples || performance.now() - started < options.maxSeconds * 1000); i++) {
        const t0 = performance.now();
        rows += await c.sql(reader, i);
        sql.add(performance.now() - t0);
      }
      const { samples: api, bytes } = apiSide[index];
      const a = api.summary();
      const s = sql.summary();
      out.push({
        name: c.name,
        request: c.request,
        api: { p50: a.p50, p99: a.p99, n: a.n },
        sql: { p50: s.p50, p99: s.p99, n: s.n },
        ratioP50: a.p50 / s.p50,
        ratioP99: a.p99 / s.p99,
        responseBytes: bytes / Math.max(1, api.size),
        rows: rows / Math.max(1, sql.size),
      });
      options.log?.(`  ${c.name}: SQL p50 ${s.p50.toFixed(2)} ms p99 ${s.p99.toFixed(2)} ms (n=${s.n}, ${(rows / Math.max(1, sql.size)).toFixed(1)} rows)`);
    }
  } finally {
    for (const c of connections) c.closeSync();
    instance.closeSync();
  }
  return out;
}
