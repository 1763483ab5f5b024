// Issue #25, items 12 and 14 through the API: GET /v1/traces (filters, newest first, the events'
// cursor), GET /v1/replays' duration filters, and GET /v1/releases and /v1/releases/{version}
// (events, new and regressed issues, crash-free sessions and users from Sentry session items).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { postJson } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

async function get(path: string, status = 200): Promise<Json> {
  const res = await svc.api(path);
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as Json;
}

const post = (path: string, body: unknown): Promise<Json> => postJson(svc, path, body) as Promise<Json>;

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc?.stop());

describe('GET /v1/traces', () => {
  // Five traces a second apart: i = 0 … 4, trace i lasts (i + 1) * 100 ms, odd ones have an error
  // span, trace 4 crosses into the db service, environments alternate.
  const base = Date.now() - 60_000;
  const traceId = (i: number) => hex(0xabc00 + i, 32);
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      const start = base + i * 1000;
      const resource = { 'service.name': 'shop', 'service.version': `1.${i % 2}`, 'deployment.environment.name': i % 2 ? 'staging' : 'production' };
      const spans = [
        {
          trace_id: traceId(i),
          span_id: hex(i * 10 + 1, 16),
          name: `GET /page/${i}`,
          service_name: 'shop',
          start_time: start,
          end_time: start + (i + 1) * 100,
          status: 'ok',
          resource_attributes: resource,
        },
        {
          trace_id: traceId(i),
          span_id: hex(i * 10 + 2, 16),
          parent_span_id: hex(i * 10 + 1, 16),
          name: 'query',
          service_name: i === 4 ? 'db' : 'shop',
          start_time: start + 10,
          end_time: start + 50,
          status: i % 2 ? 'error' : 'ok',
          resource_attributes: resource,
        },
      ];
      await post('/v1/traces', { project_id: 'default', spans });
    }
  });

  const ids = async (query: string) => ((await get(`/v1/traces?project_id=default&${query}`)).data as Json[]).map((t) => t.trace_id as string);

  it('lists traces newest first with their root span, services, duration and counts', async () => {
    const page = await get('/v1/traces?project_id=default&limit=5');
    expect(page.data.map((t: Json) => t.trace_id)).toEqual([4, 3, 2, 1, 0].map(traceId));
    expect(page.data[0]).toMatchObject({
      root_name: 'GET /page/4',
      root_service: 'shop',
      duration_ms: 500,
      span_count: 2,
      error_span_count: 0,
      services: ['db', 'shop'],
      environment: 'production',
      release: 'shop@1.0',
    });
    expect(page.data[1]).toMatchObject({ error_span_count: 1, environment: 'staging', release: 'shop@1.1' });
  });

  it('filters by service, duration, status, environment and release', async () => {
    expect(await ids('service=db')).toEqual([traceId(4)]);
    expect(await ids('min_duration_ms=300')).toEqual([4, 3, 2].map(traceId));
    expect(await ids('min_duration_ms=200&max_duration_ms=300')).toEqual([2, 1].map(traceId));
    expect(await ids('status=error')).toEqual([3, 1].map(traceId));
    expect(await ids('status=ok')).toEqual([4, 2, 0].map(traceId));
    expect(await ids('environment=staging')).toEqual([3, 1].map(traceId));
    expect(await ids('release=shop@1.0&min_duration_ms=200')).toEqual([4, 2].map(traceId));
  });

  it('pages with the cursor, and answers bad parameters with 400 invalid_parameter', async () => {
    const first = await get('/v1/traces?project_id=default&limit=2');
    expect(first.has_more).toBe(true);
    const second = await get(`/v1/traces?project_id=default&limit=2&cursor=${first.next_cursor}`);
    const third = await get(`/v1/traces?project_id=default&limit=2&cursor=${second.next_cursor}`);
    expect([...first.data, ...second.data, ...third.data].map((t: Json) => t.trace_id)).toEqual([4, 3, 2, 1, 0].map(traceId));
    expect(third).toMatchObject({ has_more: false, next_cursor: null });
    // The same with a filter read from the documents (environment): cursors continue where the page ended.
    const staged = await get('/v1/traces?project_id=default&environment=production&limit=1');
    const rest = await get(`/v1/traces?project_id=default&environment=production&limit=5&cursor=${staged.next_cursor}`);
    expect([...staged.data, ...rest.data].map((t: Json) => t.trace_id)).toEqual([4, 2, 0].map(traceId));
    for (const bad of ['cursor=nope', 'status=broken', 'min_duration_ms=-1', 'min_duration_ms=5&max_duration_ms=1', 'start=yesterday']) {
      const body = await get(`/v1/traces?project_id=default&${bad}`, 400);
      expect(body.error.code).toBe('invalid_parameter');
    }
    expect((await get('/v1/traces', 400)).error.message).toContain('project_id');
  });
});

describe('GET /v1/replays duration filters', () => {
  it('keeps the replays as long as asked', async () => {
    const now = Date.now() - 20_000;
    const short = `rpl_${randomUUID().replace(/-/g, '')}`;
    const long = `rpl_${randomUUID().replace(/-/g, '')}`;
    // rrwebEvents spaces its events 100 ms apart: 3 events last 200 ms, 40 last 3.9 s.
    expect((await postChunk(svc, 'events', { replay_id: short, segment_id: 0, environment: 'dur' }, rrwebEvents(now, 3))).status).toBe(202);
    expect((await postChunk(svc, 'events', { replay_id: long, segment_id: 0, environment: 'dur' }, rrwebEvents(now + 1000, 40))).status).toBe(202);
    const list = async (q: string) => ((await get(`/v1/replays?project_id=default&environment=dur&${q}`)).data as Json[]).map((r) => r.id as string);
    expect(await list('')).toEqual([long, short]);
    expect(await list('min_duration_ms=1000')).toEqual([long]);
    expect(await list('max_duration_ms=1000')).toEqual([short]);
    expect((await get('/v1/replays?project_id=default&max_duration_ms=x', 400)).error.code).toBe('invalid_parameter');
  });
});

describe('GET /v1/releases', () => {
  it('lists releases with events, new issues and release health, and shows one with its new and regressed issues', async () => {
    const project = ((await get('/v1/projects')).data as Json[])[0];
    const publicKey = new URL(project.dsn as string).username;
    const envelope = (items: unknown[]) =>
      [JSON.stringify({ sent_at: new Date().toISOString() }), ...items.flatMap((item) => [JSON.stringify({ type: 'session' }), JSON.stringify(item)])].join(
        '\n',
      );
    const started = new Date().toISOString();
    // rel@2: 4 sessions (1 crashed) of 3 users, one of whom crashed; rel@1: 1 healthy session.
    const sessions = [
      { sid: hex(1, 32), did: 'ada', init: true, started, status: 'ok', attrs: { release: 'rel@2' } },
      { sid: hex(1, 32), did: 'ada', init: false, started, status: 'crashed', attrs: { release: 'rel@2' } },
      { sid: hex(2, 32), did: 'ada', init: true, started, status: 'exited', attrs: { release: 'rel@2' } },
      { sid: hex(3, 32), did: 'bob', init: true, started, status: 'exited', attrs: { release: 'rel@2' } },
      { sid: hex(4, 32), did: 'cy', init: true, started, status: 'exited', attrs: { release: 'rel@2', environment: 'staging' } },
      { sid: hex(5, 32), did: 'ada', init: true, started, status: 'exited', attrs: { release: 'rel@1' } },
    ];
    const res = await fetch(`${svc.baseUrl}/api/${project.ingest_id}/envelope/`, {
      method: 'POST',
      body: envelope(sessions),
      headers: { 'x-sentry-auth': `Sentry sentry_key=${publicKey}, sentry_version=7` },
    });
    expect(res.status, await res.text()).toBe(200);

    const event = (release: string, type: string, at: number) => ({
      id: randomUUID(),
      timestamp: new Date(at).toISOString(),
      environment: 'production',
      release,
      exception: { type, value: 'boom', stacktrace: [{ filename: 'src/app.js', function: type, lineno: 1, in_app: true }] },
    });
    const t = Date.now() - 10_000;
    // OldError is born in rel@1, resolved, and comes back in rel@2; NewError is born in rel@2.
    const old = await post('/v1/events', event('rel@1', 'OldError', t));
    const oldIssue = (old.permalink as string).split('/').at(-1) as string;
    const resolved = await svc.api(`/v1/issues/${oldIssue}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }) });
    expect(resolved.status, await resolved.text()).toBe(200);
    await post('/v1/events', event('rel@2', 'OldError', t + 1000));
    const fresh = await post('/v1/events', event('rel@2', 'NewError', t + 2000));
    const newIssue = (fresh.permalink as string).split('/').at(-1) as string;

    const list = await get('/v1/releases?project_id=default');
    const byVersion = new Map((list.data as Json[]).map((r) => [r.version, r]));
    expect(byVersion.get('rel@2')).toMatchObject({ event_count: 2, new_issue_count: 1 });
    expect(byVersion.get('rel@2')?.health).toEqual({
      sessions: 4,
      crashed: 1,
      errored: 0,
      abnormal: 0,
      crash_free_sessions: 0.75,
      users: 3,
      crashed_users: 1,
      crash_free_users: 1 - 1 / 3,
    });
    expect(byVersion.get('rel@1')).toMatchObject({ event_count: 1, new_issue_count: 1, health: { sessions: 1, crash_free_sessions: 1, crash_free_users: 1 } });
    const versions = (list.data as Json[]).map((r) => r.version);
    expect(versions.indexOf('rel@2')).toBeLessThan(versions.indexOf('rel@1'));

    const one = await get(`/v1/releases/${encodeURIComponent('rel@2')}?project_id=default`);
    expect(one).toMatchObject({ version: 'rel@2', event_count: 2, environments: ['production', 'staging'] });
    expect(one.new_issues.map((i: Json) => i.id)).toEqual([newIssue]);
    expect(one.regressed_issues.map((i: Json) => i.id)).toEqual([oldIssue]);
    expect(Date.parse(one.first_seen)).toBe(t + 1000);

    const paged = await get('/v1/releases?project_id=default&limit=1');
    expect(paged.has_more).toBe(true);
    const next = await get(`/v1/releases?project_id=default&limit=1&cursor=${paged.next_cursor}`);
    expect(next.data[0].version).not.toBe(paged.data[0].version);
    expect((await get('/v1/releases/nope@0?project_id=default', 404)).error.code).toBe('not_found');
    expect((await get('/v1/releases?project_id=default&cursor=zz', 400)).error.code).toBe('invalid_parameter');
  });
});
