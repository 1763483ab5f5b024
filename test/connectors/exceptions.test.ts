// The `exceptions` connector against the real service: spans with exception events, sent through
// /v1/traces and OTLP, become error events; the span sender's acknowledgment covers them, and a
// full events pipeline refuses the span batch with a retryable 503 that a retry gets past without
// storing anything twice.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineGraph } from '../../src/engine/graph.js';
import { packageRoot } from '../../src/paths.js';
import { startService, type TestService } from '../support/service.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const NOW_MS = Date.now() - 60_000;
const defaultYaml = () => readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8');

function failingSpan(trace: string) {
  return {
    trace_id: trace,
    span_id: hex(8),
    name: 'checkout',
    start_time: NOW_MS,
    end_time: NOW_MS + 10,
    status: 'error',
    events: [{ name: 'exception', time: NOW_MS + 5, attributes: { 'exception.type': 'TypeError', 'exception.message': 'cart is empty' } }],
  };
}

function otlpJson(trace: string): string {
  const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: trace,
                spanId: hex(8),
                name: 'pay',
                startTimeUnixNano: nanos(NOW_MS),
                endTimeUnixNano: nanos(NOW_MS + 10),
                events: [
                  {
                    name: 'exception',
                    timeUnixNano: nanos(NOW_MS + 5),
                    attributes: [
                      { key: 'exception.type', value: { stringValue: 'RangeError' } },
                      { key: 'exception.message', value: { stringValue: 'no funds' } },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
}

describe('exceptions connector', () => {
  let svc: TestService;
  beforeAll(async () => {
    // One event in flight fills the events pipeline.
    const yaml = defaultYaml().replace('      exporters: [duckdb]\n    traces:', '      exporters: [duckdb]\n      max_in_flight: { items: 1 }\n    traces:');
    expect(yaml).toContain('max_in_flight: { items: 1 }');
    svc = await startService({ yaml });
  });
  afterAll(() => svc.stop());

  const eventsPipeline = () => {
    const graph = (svc.service as unknown as { graph: PipelineGraph }).graph;
    const pipeline = graph.pipelines.find((p) => p.id === 'events');
    if (!pipeline) throw new Error('no events pipeline');
    return pipeline;
  };
  const errorEventIds = async (trace: string) => ((await (await svc.api(`/v1/traces/${trace}`)).json()) as { error_event_ids: string[] }).error_event_ids;
  const postOtlp = (body: string) =>
    fetch(`${svc.otlpUrl}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' }, body });

  it('a full events pipeline refuses the span batch with a retryable 503; the retry stores each event once', async () => {
    const trace = hex(16);
    const body = JSON.stringify({ spans: [failingSpan(trace)] });
    const otlpTrace = hex(16);
    const otlpBody = otlpJson(otlpTrace);

    const pipeline = eventsPipeline();
    pipeline.admit(1, 0); // what a request in flight would hold
    try {
      const refused = await svc.api('/v1/traces', { method: 'POST', body });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('overloaded');
      const otlpRefused = await postOtlp(otlpBody);
      expect(otlpRefused.status).toBe(503);
      expect(otlpRefused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      pipeline.release(1, 0);
    }

    const retried = await svc.api('/v1/traces', { method: 'POST', body });
    expect(retried.status).toBe(202);
    expect(await retried.json()).toEqual({ accepted: 1, rejected: 0, errors: [] });
    expect((await postOtlp(otlpBody)).status).toBe(200);
    expect(await errorEventIds(trace)).toHaveLength(1);
    expect(await errorEventIds(otlpTrace)).toHaveLength(1);
    // The spans stored before the refusal are not stored again.
    const record = (await (await svc.api(`/v1/traces/${trace}`)).json()) as { span_count: number };
    expect(record.span_count).toBe(1);
  });

  it('the acknowledgment covers the events: they are readable as soon as the spans are acknowledged', async () => {
    const trace = hex(16);
    expect((await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [failingSpan(trace)] }) })).status).toBe(202);
    const [id] = await errorEventIds(trace);
    const event = (await (await svc.api(`/v1/events/${id}`)).json()) as { trace_id: string; exception: { type: string; value: string } };
    expect(event).toMatchObject({ trace_id: trace, exception: { type: 'TypeError', value: 'cart is empty' } });
  });
});

describe('without the exceptions connector', () => {
  let svc: TestService;
  beforeAll(async () => {
    const yaml = defaultYaml()
      .replace('connectors:\n  exceptions: {}', '')
      .replace('receivers: [http_api, exceptions, monitors]', 'receivers: [http_api, monitors]')
      .replace('exporters: [duckdb, exceptions]', 'exporters: [duckdb]');
    svc = await startService({ yaml });
  });
  afterAll(() => svc.stop());

  it('spans are stored and their exceptions are not turned into events', async () => {
    const trace = hex(16);
    expect((await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [failingSpan(trace)] }) })).status).toBe(202);
    const record = (await (await svc.api(`/v1/traces/${trace}`)).json()) as { span_count: number; error_event_ids: string[] };
    expect(record).toMatchObject({ span_count: 1, error_event_ids: [] });
  });
});
