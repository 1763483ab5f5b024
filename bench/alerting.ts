// The alerting processor's cost on the hot path, in process: CPU per event with 100 active rules on
// the event's project (60 error_spike rules, half of which match and count the event, 20 new_issue,
// 20 regression that the event does not trigger) against none, and per span with 100 latency rules.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertingProcessor } from '../processors/alerting/processor.js';
import { alertingConfigSchema } from '../processors/alerting/config.js';
import { AlertingRuntime } from '../processors/alerting/runtime.js';
import type { Item } from '../src/engine/item.js';
import type { AlertRuleInput } from '../src/records/alert-rule.js';
import type { ErrorEvent } from '../src/records/event.js';
import type { Span } from '../src/records/span.js';
import { benchHost } from './extensions.js';
import { alertsOf } from '../extensions/alerts/index.js';
import { databaseOf } from '../extensions/duckdb/index.js';

interface Rate {
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

export interface AlertingResult {
  events: { none: Rate; rules100: Rate };
  spans: { none: Rate; rules100: Rate };
}

const tenant = { orgId: 'default', projectId: 'default', dataset: 'live' as const };

function event(n: number): Item<ErrorEvent> {
  return {
    tenant,
    receivedAt: Date.now(),
    size: 6000,
    data: { id: `e${n}`, issue_id: `i${n % 200}`, environment: 'production', level: 'error', tags: { route: n % 2 ? '/a' : '/b' } } as unknown as ErrorEvent,
  };
}

function span(n: number): Item<Span> {
  return {
    tenant,
    receivedAt: Date.now(),
    size: 800,
    data: { service_name: `svc${n % 4}`, name: 'GET /cart', start_time_unix_nano: 0n, end_time_unix_nano: BigInt(1_000_000 + n) } as unknown as Span,
  };
}

/** Runs `batch` (100 items, as a busy receiver hands them over) for `seconds`; rates are per item. */
async function measure(batch: () => Promise<void> | void, seconds: number): Promise<Rate> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    await batch();
    n += 100;
  }
  const cpu = process.cpuUsage(cpu0);
  return { eventsPerSecond: n / ((performance.now() - t0) / 1000), cpuMicrosPerEvent: (cpu.user + cpu.system) / n };
}

export async function measureAlerting(options: { seconds: number }): Promise<AlertingResult> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-alerting-'));
  const opened = await benchHost(dir, ['alerts', 'catalog'], { app_url: 'http://bench' });
  const { host } = opened;
  const db = databaseOf(host);
  try {
    const alerts = alertsOf(host);
    const runtime = new AlertingRuntime('alerting', alertingConfigSchema.parse({}), host);
    const events = new AlertingProcessor(runtime, 'events');
    const spans = new AlertingProcessor(runtime, 'traces');
    const eventBatch = Array.from({ length: 100 }, (_, i) => event(i));
    const spanBatch = Array.from({ length: 100 }, (_, i) => span(i));
    const seconds = options.seconds;
    const eventsNone = await measure(() => events.process(eventBatch), seconds);
    const spansNone = await measure(() => spans.process(spanBatch), seconds);

    const log = [{ type: 'log' as const }];
    const base = { project_id: 'default', actions: log, environment: null, enabled: true, frequency: '30m' };
    const add = (input: Omit<AlertRuleInput, keyof typeof base>) => alerts.rules.create({ ...base, ...input }, { dataset: 'live', orgId: 'default' });
    for (let i = 0; i < 60; i++)
      await add({ name: `spike ${i}`, type: 'error_spike', conditions: { threshold: 1e6, window: '5m', tags: { route: i % 2 ? '/a' : '/c' } } });
    for (let i = 0; i < 20; i++) await add({ name: `new ${i}`, type: 'new_issue', conditions: {} });
    for (let i = 0; i < 20; i++) await add({ name: `regression ${i}`, type: 'regression', conditions: {} });
    const eventsRules = await measure(() => events.process(eventBatch), seconds);
    for (const rule of alerts.rules.all()) await alerts.rules.delete(rule.id);
    for (let i = 0; i < 100; i++)
      await add({
        name: `latency ${i}`,
        type: 'latency',
        conditions: { service: `svc${i % 8}`, percentile: 95, threshold_ms: 500, window: '5m', min_samples: 10 },
      });
    const spansRules = await measure(() => spans.process(spanBatch), seconds);
    return { events: { none: eventsNone, rules100: eventsRules }, spans: { none: spansNone, rules100: spansRules } };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
