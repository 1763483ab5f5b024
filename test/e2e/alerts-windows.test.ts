// error_spike and latency rules end to end: events over HTTP and spans from the stock OpenTelemetry
// SDK, notifications at a real local HTTP receiver. The evaluation timer is set far out and the
// tests run each evaluation themselves at a time they choose, so nothing depends on the clock's pace.
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeFor } from '../../processors/alerting/runtime.js';
import { alertingConfigSchema } from '../../processors/alerting/config.js';
import { alertingYaml, createRule, errorEvent, getRule } from '../support/alerts.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
let hook: Receiver;
const MINUTE = 60_000;

beforeAll(async () => {
  [svc, hook] = await Promise.all([startService({ yaml: alertingYaml({ evaluationMs: 3_600_000 }) }), startReceiver()]);
});
afterAll(async () => {
  await svc.stop();
  await hook.close();
});

/** Runs one evaluation round at `at` (the service's own timer is an hour out). */
function evaluate(at = Date.now()): Promise<void> {
  return runtimeFor(svc.service.host, 'alerting', alertingConfigSchema.parse({})).evaluate(at);
}

async function post(events: number, tags: Record<string, string>): Promise<void> {
  const responses = await Promise.all(
    Array.from({ length: events }, () => svc.api('/v1/events', { method: 'POST', body: JSON.stringify(errorEvent({ tags }, 'SpikeError')) })),
  );
  expect(responses.map((r) => r.status)).toEqual(Array(events).fill(202));
}

const at = (path: string) => (r: { path: string }) => r.path === path;

describe('error_spike rules', () => {
  it('fire on one event more than the threshold, not at it, and resolve when the window empties', async () => {
    const path = '/spike-threshold';
    const rule = await createRule(svc, {
      name: 'Checkout errors',
      type: 'error_spike',
      conditions: { threshold: 3, window: '5m', tags: { route: '/checkout' } },
      actions: [{ type: 'webhook', url: hook.url + path }],
    });
    await post(3, { route: '/checkout' });
    await post(2, { route: '/elsewhere' }); // not matching the tag filter
    await evaluate();
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'ok', last_value: 3 });
    expect(hook.requests.filter(at(path))).toHaveLength(0);

    await post(1, { route: '/checkout' });
    await evaluate();
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'firing', last_value: 4 });
    const [firing] = await hook.waitFor(1, at(path));
    expect(firing.json).toMatchObject({ state: 'firing', value: 4, threshold: 3, unit: 'events', window: '5m', rule: { type: 'error_spike' } });
    expect(firing.json.event).toMatchObject({ exception: { type: 'SpikeError' } });

    await evaluate(Date.now() + 6 * MINUTE); // the window has moved past every event
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'ok', last_value: 0 });
    const [resolved] = await hook.waitFor(1, (r) => r.path === path && r.json.state === 'resolved');
    expect(resolved.json).toMatchObject({ state: 'resolved', value: 0, threshold: 3 });
  });

  it('fire on a percent increase over a quiet comparison window only past the percentage', async () => {
    const path = '/spike-percent';
    const rule = await createRule(svc, {
      name: 'Doubling',
      type: 'error_spike',
      conditions: { percent_increase: 100, window: '1m', comparison_window: '10m', tags: { route: '/pay' } },
      actions: [{ type: 'webhook', url: hook.url + path }],
    });
    // Quiet comparison window: it counts as one event, so 2 events are +100% (not more than 100).
    await post(2, { route: '/pay' });
    await evaluate();
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'ok', last_value: 100 });
    await post(1, { route: '/pay' });
    await evaluate();
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'firing', last_value: 200 });
    const [firing] = await hook.waitFor(1, at(path));
    expect(firing.json).toMatchObject({ state: 'firing', value: 200, threshold: 100, unit: 'percent' });
    // Five minutes on, the three events are the comparison window and the window is empty.
    await evaluate(Date.now() + 5 * MINUTE);
    expect(await getRule(svc, rule.id)).toMatchObject({ state: 'ok', last_value: -100 });
  });

  it('limit repeats to one per frequency while firing', async () => {
    const path = '/spike-frequency';
    const rule = await createRule(svc, {
      name: 'Hourly reminder',
      type: 'error_spike',
      frequency: '1h',
      conditions: { threshold: 0, window: '10m', tags: { route: '/freq' } },
      actions: [{ type: 'webhook', url: hook.url + path }],
    });
    await post(1, { route: '/freq' });
    const now = Date.now();
    await evaluate(now);
    await evaluate(now + MINUTE);
    await evaluate(now + 2 * MINUTE);
    await hook.waitFor(1, at(path));
    expect((await getRule(svc, rule.id)).state).toBe('firing');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests.filter(at(path))).toHaveLength(1);
  });
});

describe('latency rules', () => {
  const exporter = () => new OTLPTraceExporter({ url: `${svc.otlpUrl}/v1/traces`, headers: { Authorization: `Bearer ${svc.liveKey}` } });

  /** `count` spans of `ms` each, named `operation`, from the stock SDK's OTLP exporter. */
  async function sendSpans(service: string, operation: string, count: number, ms: number): Promise<void> {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [new SimpleSpanProcessor(exporter())],
    });
    const tracer = provider.getTracer('alerts-test');
    const start = Date.now() - ms;
    for (let i = 0; i < count; i++) tracer.startSpan(operation, { startTime: start }, ROOT_CONTEXT).end(start + ms);
    await provider.forceFlush();
    await provider.shutdown();
  }

  it('fire when the percentile of a service operation passes threshold_ms with enough samples, and resolve', async () => {
    const path = '/latency';
    const rule = await createRule(svc, {
      name: 'Slow cart',
      type: 'latency',
      conditions: { service: 'cart-api', operation: 'GET /cart', percentile: 90, threshold_ms: 200, window: '5m', min_samples: 10 },
      actions: [
        { type: 'webhook', url: hook.url + path },
        { type: 'slack', url: `${hook.url}/slack` },
      ],
    });
    const sparse = await createRule(svc, {
      name: 'Needs many samples',
      type: 'latency',
      conditions: { service: 'cart-api', threshold_ms: 200, window: '5m', min_samples: 1000 },
      actions: [{ type: 'webhook', url: `${hook.url}/sparse` }],
    });
    await sendSpans('cart-api', 'GET /cart', 10, 50);
    await sendSpans('cart-api', 'GET /other', 10, 900); // another operation
    await sendSpans('search-api', 'GET /cart', 10, 900); // another service
    await evaluate();
    const calm = await getRule(svc, rule.id);
    expect(calm.state).toBe('ok');
    expect(calm.last_value).toBeGreaterThanOrEqual(50);
    expect(calm.last_value).toBeLessThan(51);

    await sendSpans('cart-api', 'GET /cart', 10, 800); // p90 of 20 spans: the 18th, 800 ms
    await evaluate();
    const slow = await getRule(svc, rule.id);
    expect(slow.state).toBe('firing');
    expect(slow.last_value).toBeGreaterThanOrEqual(800);
    expect(slow.last_value).toBeLessThan(808); // within the histogram's 1%
    const [firing] = await hook.waitFor(1, at(path));
    expect(firing.json).toMatchObject({ state: 'firing', threshold: 200, unit: 'ms', rule: { name: 'Slow cart', type: 'latency' } });
    const [slack] = await hook.waitFor(1, at('/slack'));
    expect(slack.json.text).toMatch(/Slow cart: firing/);
    expect(JSON.stringify(slack.json.blocks)).toContain('Slow cart');
    expect((await getRule(svc, sparse.id)).state).toBe('ok'); // 40 spans < min_samples

    await evaluate(Date.now() + 6 * MINUTE);
    expect((await getRule(svc, rule.id)).state).toBe('ok');
    await hook.waitFor(1, (r) => r.path === path && r.json.state === 'resolved');
    expect(hook.requests.filter(at('/sparse'))).toHaveLength(0);
  });
});
