// The Parquet lake end to end: the API answers the same whether it reads DuckDB, the lake or both,
// and the lake-only configuration loses nothing acknowledged to kill -9.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { lakePath, listFiles, listDates } from '../../exporters/parquet/lake.js';
import { fullEvent, startService, tempDir } from '../support/service.js';
import { childEnv, startProcess } from '../support/process.js';

const DAY_MS = 24 * 3600 * 1000;
const yaml = (example: string) => readFileSync(join(packageRoot, 'config/examples', example), 'utf8');

interface Flushable {
  flushNow(): Promise<void>;
}

describe('the API reads the same from DuckDB, the lake and both', () => {
  const dataDir = tempDir('faultline-lake-');
  let keys: { live: string; test: string };
  const eventIds: string[] = [];
  const traceIds: string[] = [];
  let issueIds: string[] = [];

  beforeAll(async () => {
    // Write through both exporters, on several days, then flush the lake and stop.
    const writer = await startService({ yaml: yaml('both.yaml'), dataDir, keepData: true });
    keys = { live: writer.liveKey, test: writer.testKey };
    for (let i = 0; i < 60; i++) {
      const id = randomUUID();
      eventIds.push(id);
      const day = i % 4;
      const body = fullEvent({
        id,
        timestamp: new Date(Date.now() - day * DAY_MS - i * 1000).toISOString(),
        release: `web@1.${i % 3}.0`,
        environment: i % 2 ? 'production' : 'staging',
        exception: {
          type: `Error${i % 5}`,
          value: `failure ${i % 5}`,
          stacktrace: [{ filename: `src/m${i % 5}.js`, function: `f${i % 5}`, lineno: i, in_app: true }],
        },
      });
      expect((await writer.api('/v1/events', { method: 'POST', body: JSON.stringify(body) })).status).toBe(202);
    }
    for (let t = 0; t < 5; t++) {
      const trace = randomBytes(16).toString('hex');
      traceIds.push(trace);
      const root = randomBytes(8).toString('hex');
      const start = Date.now() - t * DAY_MS;
      const spans = [
        { trace_id: trace, span_id: root, name: 'GET /', service_name: 'web', start_time: start, end_time: start + 100, attributes: { n: t, ok: true } },
        {
          trace_id: trace,
          span_id: randomBytes(8).toString('hex'),
          parent_span_id: root,
          name: 'db',
          service_name: 'db',
          start_time: start + 10,
          end_time: start + 20,
        },
      ];
      expect((await writer.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans }) })).status).toBe(202);
    }
    await (writer.service.exporter('parquet') as unknown as Flushable).flushNow();
    const lake = lakePath({}, writer.service.host.settings);
    expect(listDates(lake, 'events', 'default').length).toBe(4);
    expect(listFiles(lake, 'events', 'default', listDates(lake, 'events', 'default')[0]).length).toBeGreaterThan(0);
    issueIds = ((await (await writer.api('/v1/issues?project_id=default&limit=1000')).json()) as { data: Array<{ id: string }> }).data.map((i) => i.id);
    expect(issueIds.length).toBe(5);
    await writer.stop();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function answers(source: 'duckdb' | 'parquet' | 'both'): Promise<Record<string, unknown>> {
    const svc = await startService({
      yaml: yaml('both.yaml'),
      dataDir,
      keys,
      keepData: true,
      env: { FAULTLINE_EVENTS_SOURCE: source, FAULTLINE_TRACES_SOURCE: source },
    });
    try {
      const get = async (path: string) => {
        const response = await svc.api(path);
        return { status: response.status, body: (await response.json()) as unknown };
      };
      const walk: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await get(`/v1/events?project_id=default&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body as {
          data: Array<{ id: string }>;
          next_cursor: string | null;
        };
        walk.push(...page.data.map((e) => e.id));
        cursor = page.next_cursor;
      } while (cursor);
      return {
        walk,
        firstPage: await get('/v1/events?project_id=default&limit=50'),
        filtered: await get('/v1/events?project_id=default&environment=production&query=release:web@1.1.0%20failure'),
        since: await get(`/v1/events?project_id=default&start=${new Date(Date.now() - DAY_MS).toISOString()}`),
        byId: await Promise.all(eventIds.slice(0, 10).map((id) => get(`/v1/events/${id}`))),
        issues: await get('/v1/issues?project_id=default&limit=1000'),
        issue: await Promise.all(issueIds.map((id) => get(`/v1/issues/${id}`))),
        traces: await Promise.all(traceIds.map((id) => get(`/v1/traces/${id}`))),
        traceList: await get('/v1/traces?project_id=default&limit=3'),
        traceFilter: await get('/v1/traces?project_id=default&service=db&environment=production&min_duration_ms=50'),
        releases: await get('/v1/releases?project_id=default'),
        release: await get('/v1/releases/web@1.1.0?project_id=default'),
        projects: ((await get('/v1/projects')).body as { data: Array<{ telemetry: unknown }> }).data.map((p) => p.telemetry),
      };
    } finally {
      await svc.stop();
    }
  }

  it('answers every read identically from each source', async () => {
    const duckdb = await answers('duckdb');
    const parquet = await answers('parquet');
    const both = await answers('both');
    expect((duckdb.walk as string[]).length).toBe(60);
    expect(new Set(duckdb.walk as string[]).size).toBe(60);
    const listed = duckdb.traceList as { status: number; body: { data: Array<{ trace_id: string }>; has_more: boolean } };
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t) => t.trace_id)).toEqual(traceIds.slice(0, 3));
    expect(listed.body.has_more).toBe(true);
    expect((duckdb.traceFilter as { body: { data: unknown[] } }).body.data).toHaveLength(5);
    const releases = duckdb.releases as { status: number; body: { data: Array<{ version: string; event_count: number }> } };
    expect(releases.body.data.map((r) => r.event_count).sort()).toEqual([20, 20, 20]);
    expect((duckdb.release as { body: { event_count: number; new_issue_count: number } }).body).toMatchObject({ event_count: 20 });
    expect(parquet).toEqual(duckdb);
    expect(both).toEqual(duckdb);
  });
});

describe('lake-only configuration', () => {
  it('serves reads from staging and the lake, and kill -9 between flushes loses nothing acknowledged', async () => {
    const dir = tempDir('faultline-lake-proc-');
    const file = join(dir, 'lake.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, yaml('lake.yaml').replace('interval_ms: 10000', 'interval_ms: 3600000'));
    try {
      const proc = await startProcess(dir, ['--config', file]);
      const key = proc.liveKey as string;
      const post = (body: unknown) =>
        fetch(`${proc.baseUrl}/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const acks = await Promise.all(Array.from({ length: 40 }, () => post(fullEvent())));
      const ids = await Promise.all(acks.map(async (r) => ((await r.json()) as { id: string }).id));
      expect(acks.every((r) => r.status === 202)).toBe(true);
      proc.child.kill('SIGKILL');
      await proc.exited;

      const again = await startProcess(dir, ['--config', file]);
      const list = (await (
        await fetch(`${again.baseUrl}/v1/events?project_id=default&limit=1000`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { data: Array<{ id: string }> };
      expect(list.data.map((e) => e.id).sort()).toEqual([...ids].sort());
      again.child.kill('SIGTERM'); // drains: what is staged is flushed to Parquet
      expect(await again.exited).toBe(0);
      const lake = join(dir, 'lake');
      const files = listDates(lake, 'events', 'default').flatMap((d) => listFiles(lake, 'events', 'default', d));
      expect(files.length).toBeGreaterThan(0);
      expect(childEnv(dir).FAULTLINE_DATA_DIR).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
