// Retention deletes exactly what expired, by whole UTC days, in DuckDB and in the lake.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { firstKeptDay } from '../../src/storage/retention.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

const DAY_MS = 24 * 3600 * 1000;
const noon = (daysAgo: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - daysAgo * DAY_MS + DAY_MS / 2;

function configWith(example: string): string {
  return readFileSync(join(packageRoot, example), 'utf8').replace(
    'service:\n',
    'service:\n  retention:\n    events_days: 10\n    traces_days: 10\n    check_interval_ms: 3600000\n',
  );
}

describe('firstKeptDay', () => {
  it('keeps today and the days before it, N in all', () => {
    expect(firstKeptDay(1, Date.parse('2026-11-22T10:00:00Z'))).toBe('2026-11-22');
    expect(firstKeptDay(10, Date.parse('2026-11-22T23:59:59Z'))).toBe('2026-11-13');
  });
});

describe.each([
  ['DuckDB', 'config/examples/duckdb.yaml'],
  ['the lake', 'config/examples/lake.yaml'],
])('retention in %s', (_name, example) => {
  let svc: TestService;
  const ages = [30, 11, 10, 9, 0];
  const events = new Map<number, string>();
  const traces = new Map<number, string>();

  beforeAll(async () => {
    svc = await startService({ yaml: configWith(example) });
    for (const age of ages) {
      const id = randomUUID();
      events.set(age, id);
      expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date(noon(age)).toISOString() })) })).status).toBe(202);
      const trace = randomBytes(16).toString('hex');
      traces.set(age, trace);
      const span = { trace_id: trace, span_id: randomBytes(8).toString('hex'), name: 'op', start_time: noon(age), end_time: noon(age) + 5 };
      expect((await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span] }) })).status).toBe(202);
    }
    // Put what is staged into Parquet files, when this configuration has a lake.
    const parquet = svc.service.exporter('parquet') as { flushNow?: () => Promise<void> } | undefined;
    await parquet?.flushNow?.();
  });
  afterAll(() => svc.stop());

  it('deletes the events and spans dated before the first kept day, and nothing else', async () => {
    await svc.service.runRetention();
    for (const age of ages) {
      const expected = age >= 10 ? 404 : 200;
      expect((await svc.api(`/v1/events/${events.get(age)}`)).status, `event ${age} days old`).toBe(expected);
      expect((await svc.api(`/v1/traces/${traces.get(age)}`)).status, `trace ${age} days old`).toBe(expected);
    }
    const list = (await (await svc.api('/v1/events?project_id=default&limit=1000')).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((e) => e.id).sort()).toEqual([events.get(9), events.get(0)].sort());
    if (example.includes('lake')) return;
    // The duckdb exporter's expired documents leave the DocStore too; the kept ones stay.
    const project = (await (await svc.api(`/v1/events/${events.get(0)}`)).json()) as { project_id: string };
    for (const age of ages) {
      const doc = (svc.service.exporter('duckdb') as DuckdbExporter).documents().get('events', ['live', project.project_id, events.get(age) as string]);
      expect(doc === undefined, `document of the event ${age} days old`).toBe(age >= 10);
    }
  });
});
