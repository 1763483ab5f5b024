// Span batch documents of the first layout (`spanbatch1`: every span's JSON whole, the resource
// repeated in each) still read back after the layout that stores a request's resource once
// (`spanbatch2`): a data directory whose batches are rewritten to the first layout answers every
// traces read with the same JSON as the per-span layout, and repeats sent to it are stored once.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocStore } from '../../exporters/duckdb/docs.js';
import { ParsedSpanBatch } from '../../exporters/duckdb/span-batch.js';
import { packageRoot } from '../../src/paths.js';
import { startService, type TestService } from '../support/service.js';

const BASE_MS = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 24 * 3_600_000;

const yaml = (layout: 'batch' | 'per_span') =>
  readFileSync(join(packageRoot, 'config/examples/duckdb.yaml'), 'utf8').replace('  duckdb: {}', `  duckdb:\n    span_documents: ${layout}`);

/** One trace recorded by the SDK of `service` with `scope`: a root and `children` spans, one with an event, a link and an error. */
function traceOf(service: string, scope: string, at: number, children: number, label: string): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service, 'service.version': '2.0.0', 'host.name': 'ünï "host"', 'process.pid': 7 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer(scope, '1.0.0');
  const root = tracer.startSpan(`GET /${label} 😀`, { kind: SpanKind.SERVER, startTime: at, attributes: { 'http.route': `/${label}`, ok: true } });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 1; i <= children; i++) {
    const link = i === 2 ? [{ context: root.spanContext() }] : [];
    const child = tracer.startSpan(`query ${label}.${i}`, { startTime: at + i, attributes: { 'db.rows': i }, links: link }, parent);
    if (i === 1) child.addEvent('cache.miss', { key: `k${i}` }, at + i);
    if (i === 3) child.setStatus({ code: SpanStatusCode.ERROR, message: 'said "no" \u2028' });
    child.end(at + i + 3);
  }
  root.end(at + children + 10);
  const spans = exporter.getFinishedSpans();
  void provider.shutdown();
  return spans;
}

/** Requests: one resource, two resources with different scopes in one request, a trace split over two. */
function corpus(): { bodies: Buffer[]; traceIds: string[] } {
  const a = traceOf('checkout', '@acme/http', BASE_MS, 7, 'one');
  const b = traceOf('catalog', '@acme/db', BASE_MS + 1000, 5, 'two');
  const c = traceOf('catalog', '@acme/queue', BASE_MS + 2000, 3, 'three');
  const d = traceOf('gateway', '@acme/http', BASE_MS + 3000, 9, 'four');
  const requests = [a, [...b, ...c], d.slice(0, 4), d.slice(4)];
  return {
    bodies: requests.map((spans) => Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array)),
    traceIds: [...new Set([...a, ...b, ...c, ...d].map((s) => s.spanContext().traceId))],
  };
}

/** Sends each request over OTLP/HTTP protobuf, one after the other; every one must be taken. */
async function send(svc: TestService, requests: Buffer[]): Promise<void> {
  const statuses: number[] = [];
  for (const body of requests) {
    const headers = { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/x-protobuf' };
    statuses.push((await fetch(`${svc.otlpUrl}/v1/traces`, { method: 'POST', headers, body })).status);
  }
  expect(statuses).toEqual(requests.map(() => 200));
}

async function reads(svc: TestService, traceIds: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const paths = [...traceIds.flatMap((id) => [`/v1/traces/${id}`, `/v1/traces/${id}?spans_limit=3&spans_offset=2`]), '/v1/traces?project_id=default&limit=100'];
  for (const path of paths) {
    const response = await svc.api(path);
    out[path] = `${response.status} ${await response.text()}`;
  }
  return out;
}

/** A batch document in the first layout, written as its writer wrote it: the spans' JSON in an array, each one's offset. */
function firstLayout(newestMs: number, id: string, receivedAt: string, spans: string[]): string {
  const offsets: number[] = [];
  let body = '[';
  spans.forEach((span, i) => {
    if (i) body += ',';
    offsets.push(body.length);
    body += span;
  });
  return `spanbatch1 ${newestMs} ${id} ${receivedAt}\n${offsets.join(',')}\n${body}]`;
}

describe('span batches of the first layout', () => {
  const { bodies, traceIds } = corpus();
  let perSpan: Record<string, string>;
  let dir: string;
  let keys: { live: string; test: string };

  beforeAll(async () => {
    const reference = await startService({ yaml: yaml('per_span') });
    try {
      await send(reference, bodies);
      perSpan = await reads(reference, traceIds);
    } finally {
      await reference.stop();
    }
    const svc = await startService({ yaml: yaml('batch'), keepData: true });
    dir = svc.dataDir;
    keys = { live: svc.liveKey, test: svc.testKey };
    try {
      await send(svc, bodies);
      expect(await reads(svc, traceIds)).toEqual(perSpan);
    } finally {
      await svc.stop();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('read back as the per-span layout does, and repeats sent to them are stored once', async () => {
    const whole = JSON.parse(perSpan[`/v1/traces/${traceIds[0]}`].slice(4)) as {
      span_count: number;
      spans: Array<{ resource_attributes: Record<string, unknown> }>;
    };
    expect(whole.span_count).toBe(8);
    expect(whole.spans[0].resource_attributes['host.name']).toBe('ünï "host"');

    // Rewrite every batch in the first layout, as a store written before the second one holds it.
    const docs = DocStore.open(dir);
    const stored = docs.keys('span_batches', ['live'], ['live\uffff']);
    expect(stored).toHaveLength(bodies.length);
    for (const key of stored) {
      const doc = docs.get('span_batches', key) as string;
      expect(doc.startsWith('spanbatch2 ')).toBe(true);
      const batch = ParsedSpanBatch.parse(doc);
      const spans = Array.from({ length: batch.length }, (_, i) => batch.span(i) as string);
      const old = firstLayout(batch.newestMs, batch.id, batch.receivedAt, spans);
      expect(old.length).toBeGreaterThan(doc.length); // the first layout repeats each span's resource
      await docs.put([{ kind: 'span_batches', key, doc: old }]);
      expect(docs.get('span_batches', key)).toBe(old);
    }
    await docs.close();

    const svc = await startService({ yaml: yaml('batch'), dataDir: dir, keys, keepData: true });
    try {
      expect(await reads(svc, traceIds)).toEqual(perSpan);
      await send(svc, bodies);
      expect(await reads(svc, traceIds)).toEqual(perSpan);
    } finally {
      await svc.stop();
    }
  });
});
