// The role configurations of config/examples (ingest, worker, query, single) as the Kafka tests run
// them: the example files themselves, with test settings for the librdkafka mock (no idempotent
// producer, short group timeouts, short send timeout) and quick lake flushes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { randomBytes, randomUUID } from 'node:crypto';
import { packageRoot } from '../../src/paths.js';
import type { Span } from '../../src/records/span.js';
import type { MockBroker } from './mock-broker.js';
import { seededDataDirs } from './seeded-dirs.js';
import { fullEvent, startService, tempDir, type TestService } from './service.js';

export type Role = 'ingest' | 'worker' | 'query' | 'single';

export interface RoleOptions {
  /** Pipeline budget (items) of the worker's pipelines. */
  maxInFlightItems?: number;
  flushIntervalMs?: number;
  /** The kafka receiver's key for otlp_proto messages without tenant headers. */
  key?: string;
  /** The lake on S3: the parquet exporter's `s3` section (each node's lake path is then its own local directory). */
  s3?: Record<string, unknown>;
}

/** A role's YAML: the example, tuned for tests. */
export function roleYaml(role: Role, options: RoleOptions = {}): string {
  const config = parse(readFileSync(join(packageRoot, 'config/examples', `${role}.yaml`), 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;
  const exporters = config.exporters ?? {};
  const receivers = config.receivers ?? {};
  if (exporters.kafka) Object.assign(exporters.kafka, { idempotent: false, send_timeout_ms: 2000, retry_after_s: 1, request_timeout_ms: 1500 });
  if (receivers.kafka)
    Object.assign(receivers.kafka, {
      session_timeout_ms: 3000,
      rebalance_timeout_ms: 3000,
      heartbeat_interval_ms: 300,
      fetch_max_wait_ms: 200,
      retry_backoff_ms: 100,
    });
  if (receivers.kafka && options.key) receivers.kafka.key = options.key;
  const monitors = receivers.monitors as { kafka?: Record<string, unknown> } | undefined;
  if (monitors?.kafka) {
    // Uptime checks of a loopback server every second.
    Object.assign(monitors, { detection_interval_ms: 200, min_uptime_interval_seconds: 1, allow_private_destinations: true });
    Object.assign(monitors.kafka, {
      idempotent: false,
      session_timeout_ms: 3000,
      heartbeat_interval_ms: 300,
      fetch_max_wait_ms: 200,
      request_timeout_ms: 2000,
    });
  }
  if (exporters.parquet && role !== 'query')
    Object.assign(exporters.parquet, { flush: { interval_ms: options.flushIntervalMs ?? 300 }, compaction: { interval_ms: 1000, min_rows: 100000 } });
  if (exporters.parquet && options.s3) exporters.parquet.s3 = options.s3;
  if (options.maxInFlightItems) {
    for (const [id, pipeline] of Object.entries(config.service.pipelines as Record<string, Record<string, unknown>>))
      if ((pipeline.receivers as string[]).includes('kafka') && id.startsWith('events')) pipeline.max_in_flight = { items: options.maxInFlightItems };
  }
  return stringify(config);
}

/** The environment the examples read: the shared artifacts directory sits beside the lake. */
export function roleEnv(brokers: string, lake: string, workerId = 'w1'): Record<string, string> {
  return { FAULTLINE_KAFKA_BROKERS: brokers, FAULTLINE_LAKE_DIR: lake, FAULTLINE_WORKER_ID: workerId, FAULTLINE_ARTIFACTS_DIR: `${lake}-artifacts` };
}

/**
 * The three roles of config/examples (ingest, worker, query) on one broker and lake, each on a
 * copy of one seeded catalog; each node is pushed to `started` as it starts (for the caller's stop).
 * With `s3` (the parquet exporter's `s3` section) the lake is that bucket and each node has lake
 * and artifacts directories of its own: no directory is shared between the nodes.
 */
export async function startRoles(
  broker: MockBroker,
  started: TestService[],
  options: { s3?: Record<string, unknown> } = {},
): Promise<{ ingest: TestService; query: TestService; queryDir: string; lakeDirs: string[] }> {
  const seeded = await seededDataDirs(3);
  const shared = tempDir('faultline-shared-lake-');
  const lakeDirs: string[] = [];
  for (const [index, role] of (['ingest', 'worker', 'query'] as const).entries()) {
    const lake = options.s3 ? tempDir(`faultline-${role}-lake-`) : shared;
    lakeDirs.push(lake);
    started.push(
      await startService({
        yaml: roleYaml(role, { s3: options.s3 }),
        dataDir: seeded.dirs[index],
        keys: { live: seeded.liveKey, test: seeded.testKey },
        env: roleEnv(broker.brokers, lake),
      }),
    );
  }
  return { ingest: started[started.length - 3], query: started[started.length - 1], queryDir: seeded.dirs[2], lakeDirs };
}

/** Spans as an OpenTelemetry Collector hands them to its kafka exporter (otlp_proto), 30 s ago. */
export function collectorSpans(trace: string, count: number, service: string, attributes: (i: number) => Span['attributes'] = () => ({})): Span[] {
  const start = BigInt(Date.now() - 30_000) * 1_000_000n;
  return Array.from({ length: count }, (_, i) => ({
    trace_id: trace,
    span_id: randomBytes(8).toString('hex'),
    parent_span_id: '',
    name: `${service} ${i}`,
    service_name: service,
    start_time_unix_nano: start + BigInt(i),
    end_time_unix_nano: start + BigInt(i) + 1_000_000n,
    status: 'ok',
    kind: 'server',
    attributes: attributes(i),
    resource_attributes: { 'service.name': service },
    events: [],
    links: [],
    project_id: '',
    received_at: '',
  }));
}

/** The trace's span count as the query node reads it, polled until it reaches `expected` or the deadline passes. */
export async function spanCountBy(api: (path: string) => Promise<Response>, trace: string, expected: number, deadline: number): Promise<number> {
  let count = 0;
  while (Date.now() < deadline) {
    const res = await api(`/v1/traces/${trace}`);
    count = res.status === 200 ? ((await res.json()) as { span_count: number }).span_count : 0;
    if (count >= expected) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return count;
}

/** Polls `probe` until it gives a value; throws after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The issue id of an event as `node` reads it, once the event is readable there. */
export function eventIssueOn(node: TestService, eventId: string, timeoutMs?: number): Promise<string> {
  return until(
    `event ${eventId}`,
    async () => {
      const res = await node.api(`/v1/events/${eventId}`);
      return res.status === 200 ? ((await res.json()) as { issue_id: string }).issue_id : undefined;
    },
    timeoutMs,
  );
}

/**
 * Posts `count` new events, 100 at a time, to the ingest nodes in turn, as an SDK does: a 503 (the
 * broker slow to acknowledge) is sent again after Retry-After. Each acknowledged id goes into `acked`.
 */
export async function postEventsAcked(ingestUrls: string[], key: string, count: number, acked: Set<string>): Promise<void> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let sent = 0;
  for (let i = 0; i < count; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, async () => {
        const id = randomUUID();
        for (let attempt = 0; attempt < 10; attempt++) {
          const body = JSON.stringify(fullEvent({ id, timestamp: new Date().toISOString() }));
          const res = await fetch(`${ingestUrls[sent++ % ingestUrls.length]}/v1/events`, { method: 'POST', headers, body });
          if (res.status === 202) return void acked.add(id);
          if (res.status !== 503) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }),
    );
  }
}

/** Every event id of the project as the node lists it, all pages (a duplicate shows twice). */
export async function listEventIds(node: TestService, projectId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await node.api(`/v1/events?project_id=${projectId}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`the node answered ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { data: Array<{ id: string }>; next_cursor?: string | null };
    ids.push(...body.data.map((e) => e.id));
    cursor = body.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return ids;
}
