// Issue #30, item 1, end to end: the duckdb exporter stores an event as its received body plus a
// derived record, the parquet exporter beside it still stores the whole document (the previous
// layout's encoder, run on the same event). Over the HTTP API, both must give the same JSON; and a
// data directory whose events were written in the previous layout reads back the same after the
// upgrade (the values are rewritten to exactly what the previous duckdb exporter wrote: the
// parquet exporter's document of the same event).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventBodies } from '../../bench/payloads.js';
import type { DuckdbExporter } from '../../exporters/duckdb/exporter.js';
import { DocStore } from '../../exporters/duckdb/docs.js';
import { databaseOf } from '../../extensions/duckdb/index.js';
import { packageRoot } from '../../src/paths.js';
import { isStoredBody, storedEventJson } from '../../src/records/event-body.js';
import { fullEvent, startService, tempDir, type TestService } from '../support/service.js';

const SENTRY_APP = join(import.meta.dirname, '../fixtures/sentry/node-app.mjs');
const yaml = readFileSync(join(packageRoot, 'config/examples/both.yaml'), 'utf8');
const dataDir = join(tempDir('faultline-body-'), 'data');
let svc: TestService | undefined;
let keys: { live: string; test: string };

const NOW = new Date(Date.now() - 60_000).toISOString();
const corpus: Array<Record<string, unknown>> = [
  ...eventBodies(24).bodies.map((bytes) => JSON.parse(bytes.toString('utf8')) as Record<string, unknown>),
  fullEvent(),
  fullEvent({ id: undefined, tags: { n: 7, flag: true }, user: { id: 42 } }),
  fullEvent({ message: 'naïve — 💥 \u2028 "quoted"', exception: { type: 'Ω', value: 'v', cause: { type: 'Inner', value: 'c' } } }),
  // Changed by validation, with a field it discards, or scrubbed: stored whole.
  fullEvent({ id: undefined, unknown_field: 'x' }),
  fullEvent({ trace_id: 'ABCDEF0123456789ABCDEF0123456789' }),
  fullEvent({ request: { url: `https://x.example/?password=hunter2&at=${NOW}` } }),
];

interface Stored {
  id: string;
  project: string;
  api: string;
}
const stored: Stored[] = [];

async function api(path: string): Promise<Response> {
  if (!svc) throw new Error('the service is not running');
  return svc.api(path);
}

/** The whole documents the parquet exporter staged, by event id. */
async function parquetDocuments(project: string): Promise<Map<string, string>> {
  if (!svc) throw new Error('the service is not running');
  const source = svc.service.exporter('parquet')?.readSource?.();
  if (!source) throw new Error('no parquet read source');
  const reader = await databaseOf(svc.service.host)
    .reader()
    .runAndReadAll(`SELECT id, doc FROM ${source.relation('events', [project], { kind: 'all' })}`);
  return new Map(reader.getRows().map(([id, doc]) => [String(id), String(doc)]));
}

/** The unmodified @sentry/node in a child process (test/fixtures/sentry/node-app.mjs), pointed at the service. */
function runSentryApp(dsn: string, mode: 'capture' | 'message'): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SENTRY_APP, mode], { env: { ...process.env, SENTRY_DSN: dsn }, stdio: 'ignore' });
    child.on('exit', resolve);
  });
}

/** Events sent by the real Sentry SDK (stored by the ids it gives, 32 hex digits). */
let sentryIds: string[] = [];

beforeAll(async () => {
  const service = await startService({ yaml, dataDir, keepData: true });
  svc = service;
  keys = { live: service.liveKey, test: service.testKey };
  const ids: string[] = [];
  for (const body of corpus) {
    const res = await service.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(202);
    ids.push(((await res.json()) as { id: string }).id);
  }
  const [project] = ((await (await service.api('/v1/projects')).json()) as { data: Array<{ id: string; dsn: string }> }).data;
  const url = new URL(project.dsn);
  const dsn = `http://${url.username}@${new URL(service.baseUrl).host}${url.pathname}`;
  expect(await Promise.all([runSentryApp(dsn, 'capture'), runSentryApp(dsn, 'message')])).toEqual([0, 0]);
  const all = (await (await service.api(`/v1/events?project_id=${project.id}&limit=100`)).json()) as { data: Array<{ id: string }> };
  sentryIds = all.data.map((e) => e.id).filter((id) => !ids.includes(id));
  for (const id of [...ids, ...sentryIds]) {
    const read = await service.api(`/v1/events/${id}`);
    expect(read.status).toBe(200);
    const api = await read.text();
    stored.push({ id, project: (JSON.parse(api) as { project_id: string }).project_id, api });
  }
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

describe('events stored as received', () => {
  it('read back over the API as the document the parquet exporter stored whole, for every event', async () => {
    const duckdb = svc?.service.exporter('duckdb') as DuckdbExporter;
    const parquet = await parquetDocuments(stored[0].project);
    let bodies = 0;
    for (const { id, project, api } of stored) {
      const value = duckdb.documents().get('events', ['live', project, id]) as string;
      if (isStoredBody(value)) bodies++;
      const whole = parquet.get(id);
      expect(whole, `parquet document of ${id}`).toBeDefined();
      expect(storedEventJson(value)).toBe(whole);
      expect(JSON.parse(api)).toEqual(JSON.parse(whole as string));
    }
    // The bench's bodies, the unchanged full events and the SDK's events take the body layout; the three changed ones do not.
    expect(sentryIds).toHaveLength(2);
    expect(bodies).toBe(stored.length - 3);
    const last = stored[corpus.length - 1];
    const scrubbed = duckdb.documents().get('events', ['live', last.project, last.id]) as string;
    expect(isStoredBody(scrubbed)).toBe(false);
    expect(scrubbed).not.toContain('hunter2');
  });

  it('list pages, of the project and of an issue, show the same documents', async () => {
    const byId = new Map(stored.map((s) => [s.id, JSON.parse(s.api) as { issue_id: string }]));
    const list = (await (await api(`/v1/events?project_id=${stored[0].project}&limit=100`)).json()) as { data: Array<{ id: string }> };
    expect(new Set(list.data.map((e) => e.id))).toEqual(new Set(byId.keys()));
    for (const event of list.data) expect(event).toEqual(byId.get(event.id));
    const issue = (byId.get(stored[0].id) as { issue_id: string }).issue_id;
    const page = (await (await api(`/v1/events?project_id=${stored[0].project}&issue_id=${issue}&limit=100`)).json()) as { data: Array<{ id: string }> };
    expect(page.data.length).toBeGreaterThan(0);
    for (const event of page.data) expect(event).toEqual(byId.get(event.id));
  });

  it('a data directory written in the previous layout reads back the same after the upgrade', async () => {
    const parquet = await parquetDocuments(stored[0].project);
    await svc?.stop();
    svc = undefined;
    // What the previous duckdb exporter wrote for each event: eventDocumentJson of it, as parquet stores it.
    const docs = DocStore.open(dataDir);
    await docs.put(stored.map(({ id, project }) => ({ kind: 'events' as const, key: ['live', project, id], doc: parquet.get(id) as string })));
    for (const { id, project } of stored) expect(isStoredBody(docs.get('events', ['live', project, id]) as string)).toBe(false);
    await docs.close();

    svc = await startService({ yaml, dataDir, keepData: true, keys });
    for (const { id, api: before } of stored) {
      const read = await svc.api(`/v1/events/${id}`);
      expect(read.status).toBe(200);
      expect(JSON.parse(await read.text())).toEqual(JSON.parse(before));
    }
    // New events after the upgrade take the body layout beside the old ones.
    const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    const value = (svc.service.exporter('duckdb') as DuckdbExporter).documents().get('events', ['live', stored[0].project, id]) as string;
    expect(isStoredBody(value)).toBe(true);
    expect((await svc.api(`/v1/events/${id}`)).status).toBe(200);
  });
});
