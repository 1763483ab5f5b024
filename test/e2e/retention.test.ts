// Retention deletes exactly what expired, by whole UTC days, in DuckDB and in the lake.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { firstKeptDay } from '../../src/records/retention-window.js';
import { expectError } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

const DAY_MS = 24 * 3600 * 1000;
const noon = (daysAgo: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - daysAgo * DAY_MS + DAY_MS / 2;

// The service keeps what the tests post (its retention is the test support's century: items older
// than the retention are refused at ingest); the job under test is run by hand with 10 days.
function configWith(example: string): string {
  return readFileSync(join(packageRoot, example), 'utf8').replace('service:\n', 'service:\n  retention:\n    check_interval_ms: 3600000\n');
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
      expect(
        (await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date(noon(age)).toISOString() })) })).status,
      ).toBe(202);
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
    await svc.service.runRetention({ events_days: 10, traces_days: 10 });
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

// Issue #10, item 3: items older than their signal's retention were acknowledged, then deleted
// at the next run of the job (and invisible to reads until then). They are refused at ingest.
describe('ingest past retention', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService({ env: { FAULTLINE_RETENTION_EVENTS_DAYS: '10', FAULTLINE_RETENTION_TRACES_DAYS: '5' } });
  });
  afterAll(() => svc.stop());

  it('refuses an event dated before the first kept day with 400 validation_failed at timestamp, and keeps a recent one', async () => {
    const old = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ timestamp: new Date(noon(10)).toISOString() })) });
    const body = await expectError(old, 400, 'validation_failed');
    expect(body.error.details).toEqual([
      {
        path: 'timestamp',
        message: `is before ${firstKeptDay(10)}, the first day kept: events are kept 10 days (service.retention.events_days), so it would be deleted at once`,
      },
    ]);
    const id = randomUUID();
    expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date(noon(9)).toISOString() })) })).status).toBe(
      202,
    );
    expect((await svc.api(`/v1/events/${id}`)).status).toBe(200);
  });

  it('rejects spans that start before the first kept day, per span (/v1/traces and OTLP)', async () => {
    const trace = randomBytes(16).toString('hex');
    const span = (age: number) => ({ trace_id: trace, span_id: randomBytes(8).toString('hex'), name: 'op', start_time: noon(age), end_time: noon(age) + 5 });
    const response = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span(5), span(4), span(400)] }) });
    expect(response.status).toBe(202);
    const message = `is before ${firstKeptDay(5)}, the first day kept: traces are kept 5 days (service.retention.traces_days), so it would be deleted at once`;
    expect(await response.json()).toEqual({
      accepted: 1,
      rejected: 2,
      errors: [
        { index: 0, path: 'start_time', message },
        { index: 2, path: 'start_time', message },
      ],
    });
    const read = (await (await svc.api(`/v1/traces/${trace}`)).json()) as { span_count: number };
    expect(read.span_count).toBe(1);

    const otlp = await fetch(`${svc.otlpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.liveKey}` },
      body: JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: trace,
                    spanId: randomBytes(8).toString('hex'),
                    name: 'old',
                    startTimeUnixNano: `${noon(6)}000000`,
                    endTimeUnixNano: `${noon(6)}000001`,
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    expect(otlp.status).toBe(200);
    const answer = (await otlp.json()) as { partialSuccess: { rejectedSpans: string; errorMessage: string } };
    expect(answer.partialSuccess).toEqual({ rejectedSpans: '1', errorMessage: `1 span(s) rejected: span 0: start_time ${message}` });
  });
});
