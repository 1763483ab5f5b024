// The OTLP/HTTP receiver with the stock OpenTelemetry JS SDK and exporters as the client,
// changed only in endpoint and auth header.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OTLPHttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { ExportTraceServiceRequest, ExportTraceServiceResponse } from '../../src/otlp/decode/schema.js';
import { startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

function providerFor(exporter: SpanExporter, service: string): BasicTracerProvider {
  return new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': service,
      'service.version': '3.1.4',
      'deployment.environment.name': 'staging',
      'telemetry.sdk.language': 'nodejs',
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
}

function exporters(key = svc.liveKey) {
  const headers = { Authorization: `Bearer ${key}` };
  return {
    proto: new OTLPProtoExporter({ url: `${svc.otlpUrl}/v1/traces`, headers }),
    json: new OTLPHttpExporter({ url: `${svc.otlpUrl}/v1/traces`, headers, compression: 'gzip' as never }),
  };
}

interface TraceRecord {
  trace_id: string;
  root_service: string;
  root_span_id: string;
  duration_ms: number;
  span_count: number;
  services: string[];
  error_event_ids: string[];
  tree: Array<{ span_id: string; children: Array<{ span_id: string; children: Array<{ span_id: string }> }> }>;
  spans: Array<Record<string, unknown> & { span_id: string; name: string; attributes: Record<string, unknown>; events: Array<{ name: string }> }>;
}

async function getTrace(id: string): Promise<TraceRecord> {
  const response = await svc.api(`/v1/traces/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TraceRecord;
}

/** A checkout request: server span -> client span -> failing db span with a recorded exception. */
function recordCheckout(tracer: Tracer): { traceId: string; ids: string[] } {
  const root = tracer.startSpan('POST /checkout', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.route': '/checkout',
      'http.request.method': 'POST',
      retries: 3,
      ratio: 0.25,
      cached: false,
      tags: ['a', 'b'],
      sizes: [1, 2, 3],
      flags: [true, false],
    },
  });
  const rootCtx = trace.setSpan(ROOT_CONTEXT, root);
  const client = tracer.startSpan('charge card', { kind: SpanKind.CLIENT }, rootCtx);
  const db = tracer.startSpan('INSERT orders', { kind: SpanKind.CLIENT, attributes: { 'db.system': 'postgresql' } }, trace.setSpan(rootCtx, client));
  const error = new TypeError('card is undefined');
  db.recordException(error);
  db.setStatus({ code: SpanStatusCode.ERROR, message: 'insert failed' });
  db.end();
  client.end();
  root.end();
  return { traceId: root.spanContext().traceId, ids: [root, client, db].map((s) => s.spanContext().spanId) };
}

describe('OTLP/HTTP receiver with the OpenTelemetry SDK', () => {
  it.each(['proto', 'json'] as const)('takes a nested trace from the %s exporter: tree, services, attributes, status, exception issue', async (kind) => {
    const provider = providerFor(exporters()[kind], `shop-${kind}`);
    const { traceId, ids } = recordCheckout(provider.getTracer('test'));
    await provider.forceFlush();
    await provider.shutdown();

    const record = await getTrace(traceId);
    expect(record).toMatchObject({ trace_id: traceId, root_service: `shop-${kind}`, root_span_id: ids[0], span_count: 3, services: [`shop-${kind}`] });
    expect(record.tree[0].span_id).toBe(ids[0]);
    expect(record.tree[0].children[0].span_id).toBe(ids[1]);
    expect(record.tree[0].children[0].children[0].span_id).toBe(ids[2]);
    const byName = (name: string) => record.spans.find((s) => s.name === name) as TraceRecord['spans'][number];
    const [root, db] = [byName('POST /checkout'), byName('INSERT orders')];
    expect(root).toMatchObject({ kind: 'server', name: 'POST /checkout' });
    expect(root.attributes).toEqual({
      'http.route': '/checkout',
      'http.request.method': 'POST',
      retries: 3,
      ratio: 0.25,
      cached: false,
      tags: ['a', 'b'],
      sizes: [1, 2, 3],
      flags: [true, false],
    });
    expect(root.resource_attributes).toMatchObject({ 'service.name': `shop-${kind}`, 'service.version': '3.1.4' });
    expect(root.scope).toMatchObject({ name: 'test' });
    expect(db).toMatchObject({ status: 'error', status_message: 'insert failed', kind: 'client' });
    expect(db.events.map((e) => e.name)).toEqual(['exception']);

    expect(record.error_event_ids).toHaveLength(1);
    const event = (await (await svc.api(`/v1/events/${record.error_event_ids[0]}`)).json()) as {
      trace_id: string;
      environment: string;
      release: string;
      issue_id: string;
      exception: { type: string; value: string; stacktrace: Array<{ filename?: string }> };
    };
    expect(event).toMatchObject({ trace_id: traceId, environment: 'staging', release: `shop-${kind}@3.1.4` });
    expect(event.exception).toMatchObject({ type: 'TypeError', value: 'card is undefined' });
    expect(event.exception.stacktrace.at(-1)?.filename).toMatch(/otlp\.test\.ts$/);
    expect((await svc.api(`/v1/issues/${event.issue_id}`)).status).toBe(200);
  });

  it('assembles one trace from spans sent half through /v1/traces and half through OTLP', async () => {
    const provider = providerFor(exporters().proto, 'frontend');
    const root = provider.getTracer('t').startSpan('GET /');
    root.end();
    await provider.forceFlush();
    const traceId = root.spanContext().traceId;
    const now = Date.now();
    const posted = await svc.api('/v1/traces', {
      method: 'POST',
      body: JSON.stringify({
        spans: [
          {
            trace_id: traceId,
            span_id: randomBytes(8).toString('hex'),
            parent_span_id: root.spanContext().spanId,
            name: 'db',
            service_name: 'backend',
            start_time: now,
            end_time: now + 3,
          },
        ],
      }),
    });
    expect(posted.status).toBe(202);
    const record = await getTrace(traceId);
    expect(record.span_count).toBe(2);
    expect(record.services).toEqual(['frontend', 'backend']);
    expect(record.tree[0].children).toHaveLength(1);
  });

  it('routes an organization key by the faultline.project resource attribute, and a project key to its project', async () => {
    await catalogOf(svc.service.host).createProject({ id: 'otlp-shop', name: 'OTLP shop' });
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'routed', 'faultline.project': 'otlp-shop' }),
      spanProcessors: [new SimpleSpanProcessor(exporters().proto)],
    });
    const span = provider.getTracer('t').startSpan('routed op');
    span.end();
    await provider.forceFlush();
    const traceId = span.spanContext().traceId;
    expect((await svc.api(`/v1/traces/${traceId}?project_id=otlp-shop`)).status).toBe(200);
    expect((await svc.api(`/v1/traces/${traceId}?project_id=default`)).status).toBe(404);

    const projectKey = (await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'otlp-shop' })).secret;
    const keyed = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporters(projectKey).json)] });
    const other = keyed.getTracer('t').startSpan('by key');
    other.end();
    await keyed.forceFlush();
    expect((await svc.api(`/v1/traces/${other.spanContext().traceId}?project_id=otlp-shop`)).status).toBe(200);
  });

  it('refuses garbage protobuf and bad JSON with 400, other content types with 415, missing keys with 401', async () => {
    const post = (body: string | Uint8Array, type: string, key: string | null = svc.liveKey) =>
      fetch(`${svc.otlpUrl}/v1/traces`, { method: 'POST', body, headers: { 'content-type': type, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
    const garbage = await post(new Uint8Array([0xff, 0xff, 0xff, 0x01, 0x02]), 'application/x-protobuf');
    expect(garbage.status).toBe(400);
    expect(garbage.headers.get('content-type')).toBe('application/x-protobuf');
    const badJson = await post('{"resourceSpans": [', 'application/json');
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { message: string }).message).toBeTruthy();
    expect((await post('x', 'text/plain')).status).toBe(415);
    expect((await post('{}', 'application/json', null)).status).toBe(401);
    const empty = await post(gzipSync('{"resourceSpans": []}'), 'application/json');
    expect(empty.status).toBe(400); // gzip body without Content-Encoding is not JSON
  });

  // Issue #10, item 5: OTLP calls such ids invalid; they were stored as sent.
  it.each(['application/json', 'application/x-protobuf'])(
    'rejects spans with all-zero or short ids per span (%s), and reads an all-zero parent as a root',
    async (type) => {
      const hex = (n: number) => randomBytes(n).toString('hex');
      const [traceId, root, child] = [hex(16), hex(8), hex(8)];
      const now = `${Date.now()}000000`;
      const spans = [
        ['0'.repeat(32), hex(8), ''],
        [traceId, '0'.repeat(16), ''],
        [traceId.slice(0, 16), hex(8), ''],
        [traceId, root, '0'.repeat(16)],
        [traceId, child, root],
      ].map(([t, s, p]) => ({ traceId: t, spanId: s, parentSpanId: p, name: 'op', startTimeUnixNano: now, endTimeUnixNano: now }));
      const request = { resourceSpans: [{ scopeSpans: [{ spans }] }] };
      const bytes = (h: string) => Buffer.from(h, 'hex');
      const body =
        type === 'application/json'
          ? JSON.stringify(request)
          : ExportTraceServiceRequest.encode(
              ExportTraceServiceRequest.fromObject({
                resourceSpans: [
                  {
                    scopeSpans: [
                      { spans: spans.map((s) => ({ ...s, traceId: bytes(s.traceId), spanId: bytes(s.spanId), parentSpanId: bytes(s.parentSpanId) })) },
                    ],
                  },
                ],
              }),
            ).finish();
      const response = await fetch(`${svc.otlpUrl}/v1/traces`, {
        method: 'POST',
        body,
        headers: { 'content-type': type, authorization: `Bearer ${svc.liveKey}` },
      });
      expect(response.status).toBe(200);
      const bodyBytes = new Uint8Array(await response.arrayBuffer());
      const partial =
        type === 'application/json'
          ? (JSON.parse(Buffer.from(bodyBytes).toString()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } }).partialSuccess
          : (
              ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bodyBytes), { longs: String }) as {
                partialSuccess: { rejectedSpans: string; errorMessage: string };
              }
            ).partialSuccess;
      expect(partial.rejectedSpans).toBe('3');
      expect(partial.errorMessage).toBe(
        '3 span(s) rejected: span 0: trace_id must not be all zeros (an invalid trace id in OTLP); span 1: span_id must not be all zeros (an invalid span id in OTLP); span 2: trace_id must be 16 bytes, got 8',
      );
      const record = (await getTrace(traceId)) as TraceRecord & { orphan_span_ids: string[] };
      expect(record).toMatchObject({ span_count: 2, root_span_id: root, orphan_span_ids: [] });
    },
  );

  it('is described in the README with the endpoint and headers an SDK needs', () => {
    const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
    expect(readme).toMatch(/OTEL_EXPORTER_OTLP_ENDPOINT/);
    expect(readme).toMatch(/OTEL_EXPORTER_OTLP_HEADERS/);
  });
});

describe('OTLP refusals make the SDK retry', () => {
  let limited: TestService;
  beforeAll(async () => {
    const yaml = readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8').replace(
      'service:\n',
      'service:\n  limits:\n    rate_limit:\n      requests_per_second: 1\n      burst: 1\n',
    );
    limited = await startService({ yaml });
  });
  afterAll(() => limited.stop());

  it('a 429 with Retry-After is retried by the stock exporter and every span arrives', async () => {
    const exporter = new OTLPProtoExporter({ url: `${limited.otlpUrl}/v1/traces`, headers: { Authorization: `Bearer ${limited.liveKey}` } });
    const provider = providerFor(exporter, 'retrying');
    const tracer = provider.getTracer('t');
    const spans = Array.from({ length: 3 }, (_, i) => tracer.startSpan(`op ${i}`));
    spans.forEach((s) => s.end()); // three exports at once: the bucket holds one
    await provider.forceFlush();
    // Read through the storage layer: the API would rate-limit the reads too.
    for (const s of spans) expect(await limited.service.storage?.traces.get('live', ['default'], s.spanContext().traceId)).toBeDefined();
    const metrics = await (await fetch(`${limited.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/faultline_http_request_duration_seconds_count\{method="POST",route="\/v1\/traces",status="429"\} [1-9]/);
    await provider.shutdown();
  }, 30_000);
});
