// Beyond one machine (issue #15): events/s and spans/s through ingest -> Kafka -> worker -> lake
// against the single-process path on the same machine (ratio), and the latency from a sender's
// ack to the item being readable through the query role (p50, p99). Every node is the service as
// a child process (`node bin/faultline.js start --config <file>`: ingest, worker and query as in
// config/examples, on the librdkafka mock broker that kcat starts; the single-process path one
// child), so the ratio compares the two paths on the same cores, load generator included.
// Throughput is "sent until the last item is readable", so it includes the lake's flush interval.
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { roleEnv, roleYaml } from '../test/support/kafka-roles.js';
import { startMockBroker } from '../test/support/mock-broker.js';
import { startProcess } from '../test/support/process.js';
import { startS3 } from '../test/support/s3.js';
import { startChild, tempDir } from './service.js';
import { Samples, sleep } from './stats.js';

export interface PathRates {
  eventsPerSecond: number;
  spansPerSecond: number;
  ackToReadable: { p50Ms: number; p99Ms: number; samples: number };
}

export interface KafkaBenchResult {
  events: number;
  spans: number;
  single: PathRates;
  kafka: PathRates;
  /** Through Kafka with the lake on a loopback S3 server (s3rver), when asked for (`--kafka-s3`). */
  kafkaS3?: PathRates;
  flushIntervalMs: number;
}

const FLUSH_MS = 300;
const CONCURRENCY = 32;
const SPANS_PER_REQUEST = 1000;

/** A node: the service as a child process, and the live key of the catalog every node shares. */
interface Node {
  baseUrl: string;
  liveKey: string;
  stop(): Promise<unknown>;
}

interface Nodes {
  ingest: Node;
  query: Node;
}

function event(): { id: string; body: string } {
  const id = randomUUID();
  const body = {
    id,
    timestamp: new Date().toISOString(),
    level: 'error',
    platform: 'javascript',
    environment: 'production',
    release: 'shop-web@2.15.0',
    exception: {
      type: 'TypeError',
      value: "Cannot read properties of undefined (reading 'id')",
      stacktrace: [
        { filename: 'src/pages/checkout.js', function: 'submitOrder', lineno: 88, colno: 21, in_app: true },
        { filename: 'src/lib/cart.js', function: 'totalOf', lineno: 12, colno: 7, in_app: true },
      ],
    },
    tags: { route: '/checkout' },
  };
  return { id, body: JSON.stringify(body) };
}

function traceBody(trace: string): string {
  const t0 = Date.now() - 60_000;
  const spans = Array.from({ length: SPANS_PER_REQUEST }, (_, i) => ({
    trace_id: trace,
    span_id: randomBytes(8).toString('hex'),
    name: `op ${i % 20}`,
    service_name: 'bench',
    start_time: t0 + i,
    end_time: t0 + i + 3,
  }));
  return JSON.stringify({ spans });
}

async function readable(query: Node, path: string, ok: (body: unknown) => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${query.baseUrl}${path}`, { headers: { authorization: `Bearer ${query.liveKey}` } });
    if (res.status === 200 && ok(await res.json())) return true;
    await res.body?.cancel().catch(() => undefined);
    await sleep(10);
  }
  return false;
}

async function measurePath(nodes: Nodes, events: number, spans: number, latencySamples: number): Promise<PathRates> {
  const headers = { authorization: `Bearer ${nodes.ingest.liveKey}`, 'content-type': 'application/json' };
  const post = async (path: string, body: string) => {
    let last = '';
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await fetch(`${nodes.ingest.baseUrl}${path}`, { method: 'POST', headers, body });
      if (res.status === 202 || res.status === 200) {
        await res.body?.cancel().catch(() => undefined);
        return;
      }
      last = `${res.status} ${(await res.text()).slice(0, 200)}`;
      if (res.status !== 503 && res.status !== 429) break;
      await sleep(100); // the pipeline is full: retry as an SDK would
    }
    throw new Error(`${path}: not accepted (${last})`);
  };
  // Events: CONCURRENCY senders; the clock stops when the last one is readable (one project: one partition, in order).
  let last = '';
  let t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events) {
        next++;
        const e = event();
        await post('/v1/events', e.body);
        last = e.id;
      }
    }),
  );
  if (!(await readable(nodes.query, `/v1/events/${last}`, () => true, 120_000))) throw new Error('events never became readable');
  const eventsPerSecond = events / ((performance.now() - t0) / 1000);
  // Spans: requests of SPANS_PER_REQUEST, a few at a time.
  const traces = Array.from({ length: Math.max(1, Math.round(spans / SPANS_PER_REQUEST)) }, () => randomBytes(16).toString('hex'));
  t0 = performance.now();
  let t = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (t < traces.length) await post('/v1/traces', traceBody(traces[t++]));
    }),
  );
  for (const trace of traces)
    if (!(await readable(nodes.query, `/v1/traces/${trace}`, (b) => (b as { span_count: number }).span_count >= SPANS_PER_REQUEST, 120_000)))
      throw new Error('spans never became readable');
  const spansPerSecond = (traces.length * SPANS_PER_REQUEST) / ((performance.now() - t0) / 1000);
  // Ack to readable: one event at a time on a quiet system.
  const latency = new Samples();
  for (let i = 0; i < latencySamples; i++) {
    const e = event();
    await post('/v1/events', e.body);
    const acked = performance.now();
    if (await readable(nodes.query, `/v1/events/${e.id}`, () => true, 30_000)) latency.add(performance.now() - acked);
  }
  return { eventsPerSecond, spansPerSecond, ackToReadable: { p50Ms: latency.percentile(50), p99Ms: latency.percentile(99), samples: latency.size } };
}

export async function measureKafka(options: {
  events: number;
  spans: number;
  latencySamples: number;
  log: (line: string) => void;
  /** Also the Kafka path with the lake on S3. */
  s3?: boolean;
}): Promise<KafkaBenchResult> {
  const { events, spans, latencySamples, log } = options;
  const started: Node[] = [];
  const broker = await startMockBroker();
  try {
    // One catalog, copied to every node (as the roles are deployed); its live key works everywhere.
    const seedDir = tempDir('faultline-bench-seed-');
    const seed = await startChild({ dataDir: seedDir });
    await seed.stop();
    const start = async (yaml: string, env: Record<string, string> = {}): Promise<Node> => {
      const dir = tempDir('faultline-bench-node-');
      copyFileSync(join(seedDir, 'faultline.duckdb'), join(dir, 'faultline.duckdb'));
      const configFile = join(dir, 'config.yaml');
      writeFileSync(configFile, yaml);
      const child = await startProcess(dir, ['--config', configFile], env);
      const node: Node = {
        baseUrl: child.baseUrl,
        liveKey: seed.liveKey,
        stop: async () => {
          child.child.kill('SIGTERM');
          return child.exited;
        },
      };
      started.push(node);
      return node;
    };
    log('  single process (http_api -> worker processors -> parquet, one process)…');
    const singleLake = tempDir('faultline-bench-lake-');
    const single = await start(singleYaml(singleLake));
    const singleRates = await measurePath({ ingest: single, query: single }, events, spans, latencySamples);
    await single.stop();
    started.pop();
    log('  ingest -> Kafka -> worker -> lake -> query…');
    const lake = tempDir('faultline-bench-lake-');
    const env = roleEnv(broker.brokers, lake);
    const ingest = await start(roleYaml('ingest'), env);
    await start(roleYaml('worker', { flushIntervalMs: FLUSH_MS }), env);
    const query = await start(roleYaml('query'), env);
    const kafkaRates = await measurePath({ ingest, query }, events, spans, latencySamples);
    if (!options.s3) return { events, spans, single: singleRates, kafka: kafkaRates, flushIntervalMs: FLUSH_MS };
    for (const svc of started.splice(0).reverse()) await svc.stop();
    log('  ingest -> Kafka -> worker -> S3 lake (s3rver on loopback) -> query…');
    const s3 = await startS3();
    try {
      // New topics on the same broker; each node's lake path is its own local directory.
      const topics = { events: 'bench-s3.events', traces: 'bench-s3.traces', replays: 'bench-s3.replays' };
      const lakeConfig = { ...s3.lakeConfig('bench'), refresh_ms: 200 };
      const s3Env = (node: string) => ({ ...roleEnv(broker.brokers, tempDir(`faultline-bench-${node}-`)), ...s3.env });
      const s3Ingest = await start(withTopics(roleYaml('ingest'), topics), s3Env('ingest'));
      await start(withTopics(roleYaml('worker', { flushIntervalMs: FLUSH_MS, s3: lakeConfig }), topics), s3Env('worker'));
      const s3Query = await start(roleYaml('query', { s3: lakeConfig }), s3Env('query'));
      const s3Rates = await measurePath({ ingest: s3Ingest, query: s3Query }, events, spans, latencySamples);
      for (const svc of started.splice(0).reverse()) await svc.stop();
      return { events, spans, single: singleRates, kafka: kafkaRates, kafkaS3: s3Rates, flushIntervalMs: FLUSH_MS };
    } finally {
      await s3.stop();
    }
  } finally {
    for (const svc of started.reverse()) await svc.stop().catch(() => undefined);
    await broker.stop();
  }
}

/** A role's YAML with its kafka receiver's or exporter's topics replaced. */
function withTopics(yaml: string, topics: Record<string, string>): string {
  const config = parse(yaml) as { receivers?: Record<string, Record<string, unknown>>; exporters?: Record<string, Record<string, unknown>> };
  for (const section of [config.receivers?.kafka, config.exporters?.kafka]) if (section) section.topics = topics;
  return stringify(config);
}

/** The worker's pipelines fed by the HTTP API in one process, on the same lake flush interval. */
function singleYaml(lake: string): string {
  return stringify({
    receivers: { http_api: {} },
    processors: { validation: {}, scrubbing: {}, symbolication: {}, grouping: {}, issues: {}, alerting: {} },
    exporters: { parquet: { path: lake, flush: { interval_ms: FLUSH_MS } } },
    service: {
      storage: { events: 'parquet', traces: 'parquet' },
      pipelines: {
        events: { receivers: ['http_api'], processors: ['validation', 'scrubbing', 'symbolication', 'grouping', 'issues', 'alerting'], exporters: ['parquet'] },
        traces: { receivers: ['http_api'], processors: ['validation', 'scrubbing', 'alerting'], exporters: ['parquet'] },
      },
    },
  });
}
