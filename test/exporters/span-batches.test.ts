// Spans stored in bulk (exporters/duckdb/span-batch.ts), against the layout before it (one
// document per span, kept as `span_documents: per_span`): the same OTLP protobuf requests read
// back as the same JSON from both; a data directory written with the per-span layout reads back
// the same after the upgrade; repeats are stored once across both layouts; a batch left pending by
// a crash is indexed at the next start, once; retention removes a batch with its newest span.
import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore } from '../../exporters/duckdb/docs.js';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { startProcess } from '../support/process.js';
import { startService, tempDir, type TestService } from '../support/service.js';

const DAY_MS = 24 * 3600 * 1000;
const BASE_MS = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS + 3_600_000; // two days ago, 01:00 UTC

/** The embedded default configuration with the span layout set. */
const yaml = (layout: 'batch' | 'per_span') =>
  readFileSync(join(packageRoot, 'config/examples/duckdb.yaml'), 'utf8')
    .replace('  duckdb: {}', `  duckdb:\n    span_documents: ${layout}`)
    .replace('service:\n', 'service:\n  retention:\n    check_interval_ms: 3600000\n');

/** Spans recorded by the SDK, with fixed times: every feature the span document carries. */
function record(service: string, build: (tracer: ReturnType<BasicTracerProvider['getTracer']>) => void): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'service.version': '1.2.3', 'deployment.environment.name': 'production', 'host.cpus': 8 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  build(provider.getTracer('@acme/instrumentation-ünïcode', '0.9.1'));
  const spans = exporter.getFinishedSpans();
  void provider.shutdown();
  return spans;
}

function traceOf(tracer: ReturnType<BasicTracerProvider['getTracer']>, at: number, spans: number, label: string): void {
  const root = tracer.startSpan(`GET /café/${label} 😀`, {
    kind: SpanKind.SERVER,
    startTime: at,
    attributes: { 'http.route': `/café/${label}`, 'http.response.status_code': 200, 'cache.hit': true, ratio: 0.25, tags: ['a', 'b'], long: 'x'.repeat(5000) },
  });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 1; i < spans; i++) {
    const child = tracer.startSpan(
      `SELECT ${label}.${i}`,
      {
        kind: i % 2 ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: at + i,
        attributes: { 'db.system': 'postgresql', 'db.rows': i },
        links: i === 2 ? [{ context: root.spanContext(), attributes: { why: 'retry' } }] : [],
      },
      ctx,
    );
    if (i === 1) child.addEvent('cache.miss', { key: `k${i}` }, at + i);
    if (i === 3) child.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream said "no" \u2028 twice' });
    child.end(at + i + 7);
  }
  root.end(at + spans + 20);
}

/** The corpus: OTLP protobuf requests, one trace split over two of them, one with two resources. */
function corpus(): { bodies: Buffer[]; traceIds: string[] } {
  const a = record('checkout-api', (t) => {
    traceOf(t, BASE_MS, 12, 'one');
    traceOf(t, BASE_MS + 1000, 5, 'two');
  });
  const b = record('catalog-api', (t) => traceOf(t, BASE_MS + 2000, 30, 'three'));
  const c = record('orders-worker', (t) => traceOf(t, BASE_MS + 60_500, 3, 'four'));
  const split = record('gateway', (t) => traceOf(t, BASE_MS + 120_000, 20, 'five'));
  const requests = [a, b.slice(0, 15), [...b.slice(15), ...c], split.slice(0, 1), split.slice(1)];
  const bodies = requests.map((spans) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array));
  const traceIds = [...new Set([...a, ...b, ...c, ...split].map((s) => s.spanContext().traceId))];
  return { bodies, traceIds };
}

async function post(svc: TestService, body: Buffer): Promise<void> {
  const response = await fetch(`${svc.otlpUrl}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/x-protobuf' },
    body,
  });
  expect(response.status).toBe(200);
}

/** Every traces read the corpus can be asked: each trace whole and in pages, and the lists. */
async function reads(svc: TestService, traceIds: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const get = async (path: string) => {
    const response = await svc.api(path);
    out[path] = `${response.status} ${await response.text()}`;
  };
  for (const id of traceIds) {
    await get(`/v1/traces/${id}`);
    await get(`/v1/traces/${id}?spans_limit=4&spans_offset=3`);
  }
  await get('/v1/traces?project_id=default&limit=100');
  await get('/v1/traces?project_id=default&limit=2&environment=production');
  await get('/v1/traces?project_id=default&status=error&service=catalog-api');
  return out;
}

describe('spans stored in batches', () => {
  const { bodies, traceIds } = corpus();
  let perSpan: Record<string, string>;
  let oldDir: string;
  let keys: { live: string; test: string };

  beforeAll(async () => {
    const svc = await startService({ yaml: yaml('per_span'), keepData: true });
    oldDir = svc.dataDir;
    keys = { live: svc.liveKey, test: svc.testKey };
    for (const body of bodies) await post(svc, body);
    perSpan = await reads(svc, traceIds);
    await svc.stop();
  });
  afterAll(() => rmSync(oldDir, { recursive: true, force: true }));

  it('reads back every traces read as the same JSON as the per-span layout, and a repeated request once', async () => {
    // The corpus reads something real: every trace, with its spans' documents.
    const whole = JSON.parse(perSpan[`/v1/traces/${traceIds[0]}`].slice(4)) as {
      span_count: number;
      spans: Array<{ name: string; attributes: { long?: string } }>;
    };
    expect(whole.span_count).toBe(12);
    expect(whole.spans[0].name).toBe('GET /café/one 😀');
    expect(whole.spans[0].attributes.long).toHaveLength(4096);
    expect(Object.values(perSpan).every((r) => r.startsWith('200 '))).toBe(true);

    const svc = await startService({ yaml: yaml('batch') });
    try {
      for (const body of bodies) await post(svc, body);
      const batched = await reads(svc, traceIds);
      expect(batched).toEqual(perSpan);
      // Stored as batches: one document per request, no document per span.
      const docs = (svc.service.exporter('duckdb') as DuckdbExporter).documents();
      expect(docs.keys('span_batches', ['live'], ['live\uffff'])).toHaveLength(bodies.length);
      expect(docs.keys('traces', ['live'], ['live\uffff'])).toHaveLength(0);
      // A repeat (and two copies at once) stores its batch again but its spans are read once.
      await Promise.all([post(svc, bodies[0]), post(svc, bodies[0]), post(svc, bodies[2])]);
      expect(await reads(svc, traceIds)).toEqual(perSpan);
    } finally {
      await svc.stop();
    }
  });

  it('reads a data directory written with the per-span layout the same after the upgrade, and stores repeats once across layouts', async () => {
    const svc = await startService({ yaml: yaml('batch'), dataDir: oldDir, keys, keepData: true });
    try {
      expect(await reads(svc, traceIds)).toEqual(perSpan);
      for (const body of bodies) await post(svc, body);
      expect(await reads(svc, traceIds)).toEqual(perSpan);
      // New spans of an old trace land in a batch and join it.
      const more = record('checkout-api', (t) => traceOf(t, BASE_MS + 5000, 2, 'six'));
      await post(svc, Buffer.from(ProtobufTraceSerializer.serializeRequest(more) as Uint8Array));
      const id = more[0].spanContext().traceId;
      const trace = (await (await svc.api(`/v1/traces/${id}`)).json()) as { span_count: number; spans: Array<{ name: string }> };
      expect(trace.spans.map((s) => s.name)).toEqual(['GET /café/six 😀', 'SELECT six.1']);
    } finally {
      await svc.stop();
    }
  });

  it('indexes a batch left pending by a crash at the next start, once, and retention removes batches with their newest span', async () => {
    const dataDir = tempDir();
    let svc = await startService({ yaml: yaml('batch'), dataDir, keepData: true });
    const projectKeys = { live: svc.liveKey, test: svc.testKey };
    for (const body of bodies) await post(svc, body);
    await svc.stop();

    // What a crash between the DocStore commit and DuckDB leaves: pending entries of batches,
    // one of them already indexed (DuckDB committed, the entry was not yet deleted), one not.
    const docs = DocStore.open(dataDir);
    const [first] = docs.keys('span_batches', ['live'], ['live\uffff']);
    const extra = record('late-api', (t) => traceOf(t, BASE_MS + 7000, 4, 'late'));
    const lateId = extra[0].spanContext().traceId;
    await docs.close();

    svc = await startService({ yaml: yaml('batch'), dataDir, keys: projectKeys, keepData: true });
    const stored = () => (svc.service.exporter('duckdb') as DuckdbExporter).documents().keys('span_batches', ['live'], ['live\uffff']);
    const earlier = new Set(stored().map((key) => key.join('/')));
    await post(svc, Buffer.from(ProtobufTraceSerializer.serializeRequest(extra) as Uint8Array));
    const late = stored().find((key) => !earlier.has(key.join('/')));
    if (!late) throw new Error('the late request stored no batch');
    const before = await reads(svc, [...traceIds, lateId]);
    await svc.stop();
    // The late batch's rows go (as if DuckDB had not committed them), and both entries are pending again.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(`${dataDir}/faultline.duckdb`);
    const connection = await instance.connect();
    await connection.run(`DELETE FROM spans WHERE trace_id = '${lateId}'`);
    connection.closeSync();
    instance.closeSync();
    const reopened = DocStore.open(dataDir);
    for (const key of [first, late]) {
      const tenant = { orgId: 'x', dataset: key[0], projectId: key[1] };
      await reopened.put([], { kind: 'span_batches', id: `crash-${key[3]}`, value: JSON.stringify({ items: [{ tenant, key, extra: null }] }) });
    }
    await reopened.close();

    svc = await startService({ yaml: yaml('batch'), dataDir, keys: projectKeys, keepData: true });
    try {
      expect(await reads(svc, [...traceIds, lateId])).toEqual(before);
      expect(before[`/v1/traces/${lateId}`]).toContain('"span_count":4,');
      expect((svc.service.exporter('duckdb') as DuckdbExporter).documents().allPending('span_batches')).toEqual([]);

      // Retention: a batch goes once its newest span is before the first kept day; one with a
      // span on each side stays whole, its expired span unreadable.
      const old = record('old-api', (t) => traceOf(t, BASE_MS - 20 * DAY_MS, 3, 'old'));
      const mixed = [
        ...record('mixed-api', (t) => traceOf(t, BASE_MS - 20 * DAY_MS, 2, 'mixed-old')),
        ...record('mixed-api', (t) => traceOf(t, BASE_MS, 2, 'mixed-new')),
      ];
      for (const spans of [old, mixed]) await post(svc, Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array));
      const batches = () => (svc.service.exporter('duckdb') as DuckdbExporter).documents().keys('span_batches', ['live'], ['live\uffff']);
      const count = batches().length;
      await svc.service.runRetention({ traces_days: 10 });
      expect(batches()).toHaveLength(count - 1);
      expect((await svc.api(`/v1/traces/${old[0].spanContext().traceId}`)).status).toBe(404);
      expect((await svc.api(`/v1/traces/${mixed[0].spanContext().traceId}`)).status).toBe(404);
      const kept = (await (await svc.api(`/v1/traces/${mixed[2].spanContext().traceId}`)).json()) as { spans: Array<{ name: string }> };
      expect(kept.spans.map((s) => s.name)).toEqual(['GET /café/mixed-new 😀', 'SELECT mixed-new.1']);
      const after = await reads(svc, [...traceIds, lateId]);
      for (const id of [...traceIds, lateId]) expect(after[`/v1/traces/${id}`]).toEqual(before[`/v1/traces/${id}`]);
    } finally {
      await svc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps every acknowledged span through kill -9 and a restart, each once', async () => {
    const dir = tempDir();
    try {
      const proc = await startProcess(dir);
      const key = proc.liveKey as string;
      const traces = Array.from({ length: 30 }, () => randomBytes(16).toString('hex'));
      const bodies = traces.map((traceId) => ({
        spans: Array.from({ length: 20 }, (_, i) => ({
          trace_id: traceId,
          span_id: randomBytes(8).toString('hex'),
          name: `op ${i}`,
          start_time: BASE_MS + i,
          end_time: BASE_MS + i + 5,
        })),
      }));
      const send = (body: unknown) =>
        fetch(`${proc.baseUrl}/v1/traces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      // Each request twice, at once: acknowledged both times, stored once.
      const responses = await Promise.all([...bodies, ...bodies].map(send));
      expect(responses.map((r) => r.status)).toEqual(responses.map(() => 202));
      proc.child.kill('SIGKILL');
      expect(await proc.exited).toBe('SIGKILL');

      const again = await startProcess(dir);
      try {
        for (const traceId of traces) {
          const response = await fetch(`${again.baseUrl}/v1/traces/${traceId}`, { headers: { authorization: `Bearer ${key}` } });
          expect(response.status).toBe(200);
          const trace = (await response.json()) as { span_count: number; spans: Array<{ name: string }> };
          expect(trace.span_count).toBe(20);
          expect(trace.spans.map((span) => span.name)).toEqual(Array.from({ length: 20 }, (_, i) => `op ${i}`));
        }
      } finally {
        again.child.kill('SIGKILL');
        await again.exited;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
