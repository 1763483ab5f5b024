// Sentry-SDK ingest over HTTP (issue #16): DSNs with numeric ingest ids, DSN-key auth, envelopes
// and the store endpoint, CORS, encodings, caps, rate limits; every result read back through /v1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';
import { sentryEvent } from '../support/sentry-events.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

let svc: TestService;
let dsn: string;
let publicKey: string;
let ingestId: number;

interface ProjectBody {
  id: string;
  ingest_id: number;
  dsn: string;
  keys: Array<{ id: string; type: string; dsn?: string }>;
  telemetry: {
    sessions: Array<{ release: string; sessions: number; crashed: number; crash_free_rate: number }>;
    client_reports: { discarded_total: number; discarded_events: Array<{ reason: string; category: string; quantity: number; last_seen_at: string }> };
  };
}

async function projects(): Promise<ProjectBody[]> {
  return ((await (await svc.api('/v1/projects')).json()) as { data: ProjectBody[] }).data;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

const hex = (n: number) => n.toString(16).padStart(32, '0');
const now = () => Date.now() / 1000;

function envelope(header: Record<string, unknown>, items: Array<[Record<string, unknown>, string | Buffer]>, withLength = true): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const [itemHeader, payload] of items) {
    const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    parts.push(Buffer.from(`${JSON.stringify(withLength ? { ...itemHeader, length: bytes.length } : itemHeader)}\n`), bytes, Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

function post(kind: 'envelope' | 'store', body: Buffer | string, headers: Record<string, string> = {}, id: number | string = ingestId): Promise<Response> {
  return fetch(`${svc.baseUrl}/api/${id}/${kind}/`, {
    method: 'POST',
    body,
    headers: { 'x-sentry-auth': `Sentry sentry_key=${publicKey}, sentry_version=7, sentry_client=test/1.0`, ...headers },
  });
}

async function getEvent(id: string): Promise<Json> {
  const res = await svc.api(`/v1/events/${id}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Json;
}

beforeAll(async () => {
  svc = await startService();
  const [project] = await projects();
  ({ dsn, ingest_id: ingestId } = project);
  publicKey = new URL(dsn).username;
});
afterAll(() => svc?.stop());

describe('DSN and projects', () => {
  it('gives the project a numeric ingest id and a DSN Sentry SDKs accept', async () => {
    const [project] = await projects();
    expect(project.id).toBe('default');
    expect(project.ingest_id).toBe(1);
    expect(project.dsn).toMatch(/^http:\/\/[0-9a-f]{32}@faultline\.test\/1$/);
    expect(project.keys.some((k) => k.type === 'dsn' && k.dsn === project.dsn)).toBe(true);
  });
});

describe('envelopes', () => {
  it('maps an event: chained exceptions with mechanism, tags, user, breadcrumbs, extra; 200 {id}', async () => {
    const res = await post(
      'envelope',
      envelope({ event_id: hex(1), sent_at: new Date().toISOString() }, [[{ type: 'event' }, JSON.stringify(sentryEvent(1))]]),
    );
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ id: hex(1) });
    const event = await getEvent(hex(1));
    expect(event.environment).toBe('production');
    expect(event.exception.type).toBe('TypeError');
    expect(event.exception.mechanism).toEqual({ type: 'onuncaughtexception', handled: false });
    expect(event.exception.stacktrace.map((f: { function: string }) => f.function)).toEqual(['main', 'total']);
    expect(event.exception.cause).toMatchObject({ type: 'Error', value: 'root cause', mechanism: { type: 'chained' } });
    expect(event.tags).toEqual({ route: '/cart' });
    expect(event.user).toEqual({ id: '42', email: 'ada@example.com' });
    expect(event.breadcrumbs[0]).toMatchObject({ category: 'http', message: 'GET /', level: 'info' });
    expect(event.contexts.extra).toEqual({ basket: 3 });
    expect(event.issue_id).toMatch(/^[0-9a-f]+$/);
  });

  it('takes items without length, gzip, deflate and br bodies, and the key as sentry_key or in the envelope dsn', async () => {
    const body = (n: number) => envelope({ event_id: hex(n) }, [[{ type: 'event' }, JSON.stringify(sentryEvent(n))]], false);
    const cases: Array<[number, Buffer, Record<string, string>]> = [
      [2, gzipSync(body(2)), { 'content-encoding': 'gzip' }],
      [3, deflateSync(body(3)), { 'content-encoding': 'deflate' }],
      [4, brotliCompressSync(body(4)), { 'content-encoding': 'br' }],
    ];
    for (const [, bytes, headers] of cases) expect((await post('envelope', bytes, headers)).status).toBe(200);
    const viaQuery = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/?sentry_key=${publicKey}&sentry_version=7`, { method: 'POST', body: body(5) });
    expect(viaQuery.status).toBe(200);
    const viaDsn = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/`, {
      method: 'POST',
      body: envelope({ event_id: hex(6), dsn }, [[{ type: 'event' }, JSON.stringify(sentryEvent(6))]]),
    });
    expect(viaDsn.status).toBe(200);
    for (const n of [2, 3, 4, 5, 6]) expect((await getEvent(hex(n))).exception.value).toBe(`outer ${n}`);
  });

  it('skips malformed items with a reason and keeps the rest; never a 5xx', async () => {
    const good = JSON.stringify(sentryEvent(7));
    const body = Buffer.concat([
      Buffer.from(`${JSON.stringify({ event_id: hex(7) })}\n`),
      Buffer.from(`${JSON.stringify({ type: 'event', length: 5 })}\n{bad}\n`),
      Buffer.from(`{not json\n`),
      Buffer.from(`${JSON.stringify({ type: 'event' })}\n${good}\n`),
      Buffer.from(`${JSON.stringify({ type: 'attachment', length: 4000 })}\nshort`),
    ]);
    const res = await post('envelope', body);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string; skipped: Array<{ index: number; reason: string }> };
    expect(answer.id).toBe(hex(7));
    expect(answer.skipped.map((s) => s.index)).toEqual([0, 1, 3]);
    expect(answer.skipped[2].reason).toMatch(/truncated/);
    await getEvent(hex(7));
    for (const bad of ['', 'not json\n', `${JSON.stringify({})}\n${JSON.stringify({ type: 'event', length: 3 })}\nabcdef`]) {
      const r = await post('envelope', bad);
      expect(r.status).toBeLessThan(500);
    }
    await expectError(await post('envelope', 'not json\n'), 400, 'invalid_json');
  });

  it('refuses a bad key with 401 and the key of another project with 403; an oversize item with 413', async () => {
    const body = envelope({}, [[{ type: 'event' }, JSON.stringify(sentryEvent(8))]]);
    await expectError(await post('envelope', body, { 'x-sentry-auth': 'Sentry sentry_key=0123456789abcdef0123456789abcdef' }), 401, 'unauthorized');
    await expectError(await post('envelope', body, { 'x-sentry-auth': '' }), 401, 'unauthorized');
    const other = await catalogOf(svc.service.host).createProject({ id: 'other', name: 'Other' });
    expect(other.ingest_id).toBe(2);
    await expectError(await post('envelope', body, {}, other.ingest_id), 403, 'forbidden');
    await expectError(await post('envelope', body, {}, 999), 403, 'forbidden');
    const huge = envelope({ event_id: hex(9) }, [[{ type: 'attachment', filename: 'big.bin' }, Buffer.alloc(5 * 1024 * 1024 + 1)]]);
    await expectError(await post('envelope', huge), 413, 'payload_too_large');
  });

  it('stores attachments with their event, lists them on GET /v1/events/{id}, serves their bytes to whoever reads the event', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    const body = envelope({ event_id: hex(10) }, [
      [{ type: 'event' }, JSON.stringify(sentryEvent(10))],
      [{ type: 'attachment', filename: 'log.txt', content_type: 'text/plain' }, 'hello log'],
      [{ type: 'attachment', filename: 'screen shot.png', content_type: 'image/png', attachment_type: 'event.attachment' }, png],
      [{ type: 'attachment', filename: 'page.html', content_type: 'text/html' }, '<script>alert(1)</script>'],
    ]);
    expect((await post('envelope', body)).status).toBe(200);
    const event = await getEvent(hex(10));
    expect(event.attachments).toHaveLength(3);
    const byName = Object.fromEntries((event.attachments as Json[]).map((a) => [a.name, a]));
    expect(byName['log.txt']).toMatchObject({ id: expect.stringMatching(/^att_[0-9a-f]{20}$/), content_type: 'text/plain', size: 9 });
    expect(byName['screen shot.png']).toMatchObject({ content_type: 'image/png', attachment_type: 'event.attachment', size: png.length });

    const download = (id: string, key?: string | null, eventId = hex(10)) => svc.api(`/v1/events/${eventId}/attachments/${id}`, { key });
    const text = await download(byName['log.txt'].id as string);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain');
    expect(await text.text()).toBe('hello log');
    const image = await download(byName['screen shot.png'].id as string);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''screen%20shot.png");
    expect(Buffer.from(await image.arrayBuffer())).toEqual(png);
    // Sent HTML is never a page of this origin.
    const html = await download(byName['page.html'].id as string);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    expect(html.headers.get('content-security-policy')).toContain('sandbox');
    // Dashed event ids work as on GET /v1/events/{id}.
    const dashedId = `${hex(10).slice(0, 8)}-${hex(10).slice(8, 12)}-${hex(10).slice(12, 16)}-${hex(10).slice(16, 20)}-${hex(10).slice(20)}`;
    expect((await download(byName['log.txt'].id as string, undefined, dashedId)).status).toBe(200);

    // Same isolation as the event: no key 401, the test dataset and another project's key do not reach it.
    await expectError(await download(byName['log.txt'].id as string, null), 401, 'unauthorized');
    await expectError(await download(byName['log.txt'].id as string, svc.testKey), 404, 'not_found');
    await catalogOf(svc.service.host).createProject({ id: 'attach-other', name: 'Attach other' });
    const otherKey = await catalogOf(svc.service.host).createKey({ dataset: 'live', projectId: 'attach-other' });
    expect((await download(byName['log.txt'].id as string, otherKey.secret)).status).toBe(404);
    expect((await svc.api(`/v1/events/${hex(10)}`, { key: otherKey.secret })).status).toBe(404);
    await expectError(await download('att_00000000000000000000'), 404, 'not_found');
    await expectError(await download(byName['log.txt'].id as string, undefined, hex(999)), 404, 'not_found');

    // An attachment whose event is refused is not kept; one without any event id is skipped.
    const refused = envelope({ event_id: hex(16) }, [
      [{ type: 'event' }, JSON.stringify({ event_id: hex(16), timestamp: 'never', level: 'nonsense', exception: 'no' })],
      [{ type: 'attachment', filename: 'orphan.txt' }, 'orphan'],
    ]);
    const answer = (await (await post('envelope', refused)).json()) as { skipped?: Array<{ type: string; reason: string }> };
    expect((await svc.api(`/v1/events/${hex(16)}`)).status).toBe(404);
    expect(answer.skipped?.find((s) => s.type === 'attachment')?.reason).toBe('its event was not stored');
    const orphan = (await (await post('envelope', envelope({}, [[{ type: 'attachment', filename: 'x.txt' }, 'x']]))).json()) as {
      skipped: Array<{ reason: string }>;
    };
    expect(orphan.skipped[0].reason).toMatch(/needs the event_id/);
  });

  it('counts sessions per release (crash-free rate on GET /v1/projects), client reports in /metrics; ignores unknown items', async () => {
    const started = new Date().toISOString();
    const body = envelope({}, [
      [{ type: 'session' }, JSON.stringify({ sid: hex(1), init: true, started, status: 'ok', attrs: { release: 'shop@3.0.0' } })],
      [{ type: 'session' }, JSON.stringify({ sid: hex(1), init: false, started, status: 'crashed', attrs: { release: 'shop@3.0.0' } })],
      [{ type: 'sessions' }, JSON.stringify({ aggregates: [{ started, exited: 3 }], attrs: { release: 'shop@3.0.0', environment: 'production' } })],
      [{ type: 'client_report' }, JSON.stringify({ timestamp: now(), discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 2 }] })],
      [{ type: 'statsd' }, 'x:1|c'],
    ]);
    const res = await post('envelope', body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: null });
    const project = (await projects()).find((p) => p.id === 'default') as ProjectBody;
    expect(project.telemetry.sessions).toEqual([expect.objectContaining({ release: 'shop@3.0.0', sessions: 4, crashed: 1, crash_free_rate: 0.75 })]);
    expect(project.telemetry.client_reports).toEqual({
      discarded_total: 2,
      discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 2, last_seen_at: expect.any(String) }],
    });
    // Reports add up per reason and category; a label that is not a snake_case word is counted as "other",
    // quantities that are not positive whole numbers are left out.
    const more = envelope({}, [
      [
        { type: 'client_report' },
        JSON.stringify({
          timestamp: now(),
          discarded_events: [
            { reason: 'queue_overflow', category: 'error', quantity: 3 },
            { reason: 'sample_rate', category: 'transaction', quantity: 7 },
            { reason: '<script>', category: 'error', quantity: 1 },
            { reason: 'before_send', category: 'error', quantity: -4 },
            { reason: 'before_send', category: 'error', quantity: 1.5 },
            'nonsense',
          ],
        }),
      ],
    ]);
    expect((await post('envelope', more)).status).toBe(200);
    const after = (await projects()).find((p) => p.id === 'default') as ProjectBody;
    expect(after.telemetry.client_reports.discarded_total).toBe(13);
    expect(after.telemetry.client_reports.discarded_events.map((d) => [d.reason, d.category, d.quantity])).toEqual([
      ['sample_rate', 'transaction', 7],
      ['queue_overflow', 'error', 5],
      ['other', 'error', 1],
    ]);
    // Another project's telemetry is its own.
    const other = (await projects()).find((p) => p.id !== 'default');
    if (other) expect(other.telemetry.client_reports).toEqual({ discarded_total: 0, discarded_events: [] });
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/faultline_sentry_client_discarded_events_total\{reason="queue_overflow",category="error"\} 5/);
    expect(metrics).toMatch(/faultline_sentry_envelope_items_total\{type="statsd",outcome="ignored"\} 1/);
  });

  it('turns a transaction into a trace: ids, op, description, status, exact times, tags and data', async () => {
    const traceId = 'a'.repeat(32);
    const transaction = {
      type: 'transaction',
      event_id: hex(11),
      transaction: 'GET /cart',
      start_timestamp: 1767225600.123456,
      timestamp: 1767225600.5,
      release: 'shop@2.0.0',
      contexts: { trace: { trace_id: traceId, span_id: '1'.repeat(16), op: 'http.server', status: 'ok', data: { 'http.method': 'GET' } } },
      tags: { region: 'eu' },
      spans: [
        {
          span_id: '2'.repeat(16),
          parent_span_id: '1'.repeat(16),
          trace_id: traceId,
          op: 'db',
          description: 'SELECT 1',
          start_timestamp: 1767225600.2,
          timestamp: 1767225600.25,
          status: 'internal_error',
          data: { 'db.system': 'sqlite' },
        },
      ],
    };
    const res = await post('envelope', envelope({ event_id: hex(11) }, [[{ type: 'transaction' }, JSON.stringify(transaction)]]));
    expect(res.status, await res.clone().text()).toBe(200);
    const trace = (await (await svc.api(`/v1/traces/${traceId}`)).json()) as { spans: Array<Json>; root_span_id: string };
    expect(trace.root_span_id).toBe('1'.repeat(16));
    const [root, child] = trace.spans;
    expect(root).toMatchObject({ name: 'GET /cart', service_name: 'shop', status: 'ok', kind: 'server', start_time_unix_nano: '1767225600123456000' });
    expect(root.attributes).toMatchObject({ 'sentry.op': 'http.server', region: 'eu', 'http.method': 'GET' });
    expect(child).toMatchObject({ name: 'SELECT 1', parent_span_id: '1'.repeat(16), status: 'error', start_time_unix_nano: '1767225600200000000' });
    expect(child.attributes).toMatchObject({ 'sentry.op': 'db', 'db.system': 'sqlite' });
  });

  it('stores a replay (replay_event + a zlib replay_recording) in the replays pipeline, read back on GET /v1/replays/{id}', async () => {
    const t = Date.now();
    const rrweb = [
      { type: 4, data: { href: 'https://shop.example.com/cart', width: 1280, height: 720 }, timestamp: t },
      { type: 2, data: { node: { type: 0, childNodes: [], id: 1 }, initialOffset: { left: 0, top: 0 } }, timestamp: t + 1 },
      { type: 3, data: { source: 2, type: 2, id: 1, x: 10, y: 10 }, timestamp: t + 500 },
      // The replay SDK stamps its performance spans in epoch seconds: stored in milliseconds.
      { type: 5, data: { tag: 'performanceSpan', payload: { op: 'navigation.navigate', startTimestamp: (t + 600) / 1000 } }, timestamp: (t + 600) / 1000 },
    ];
    const body = envelope({ event_id: hex(12) }, [
      [
        { type: 'replay_event' },
        JSON.stringify({
          type: 'replay_event',
          replay_id: hex(12),
          segment_id: 0,
          timestamp: t / 1000,
          replay_start_timestamp: t / 1000,
          environment: 'production',
          release: 'shop@2.0.0',
          urls: ['https://shop.example.com/cart'],
          error_ids: [hex(13)],
        }),
      ],
      [{ type: 'replay_recording' }, Buffer.concat([Buffer.from('{"segment_id":0}\n'), deflateSync(JSON.stringify(rrweb))])],
    ]);
    const res = await post('envelope', body);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { skipped?: unknown[] }).skipped ?? []).toEqual([]);
    const replay = (await (await svc.api(`/v1/replays/rpl_${hex(12)}?project_id=default`)).json()) as Json;
    expect(replay).toMatchObject({ id: `rpl_${hex(12)}`, environment: 'production', release: 'shop@2.0.0', urls: ['https://shop.example.com/cart'] });
    const segment = (await (await svc.api(`/v1/replays/rpl_${hex(12)}/segments/0?project_id=default`)).json()) as Json[];
    expect(segment.map((e) => e.type)).toEqual([4, 2, 3, 5]);
    expect(segment.map((e) => e.timestamp)).toEqual([t, t + 1, t + 500, t + 600]);
    expect(segment[3].data.payload.startTimestamp).toBe((t + 600) / 1000);
    // A bad recording's reason says which fields are wrong.
    const noTime = envelope({ event_id: hex(15) }, [
      [{ type: 'replay_event' }, JSON.stringify({ type: 'replay_event', replay_id: hex(15), segment_id: 0, timestamp: t / 1000 })],
      [{ type: 'replay_recording' }, `{"segment_id":0}\n${JSON.stringify([{ type: 4, data: {}, timestamp: 'soon' }])}`],
    ]);
    const refused = (await (await post('envelope', noTime)).json()) as { skipped: Array<{ reason: string }> };
    expect(refused.skipped).toEqual([expect.objectContaining({ reason: 'the replay chunk is invalid: events[0].timestamp: must be epoch milliseconds' })]);
    // A recording that is not rrweb events is skipped with the reason; the rest of the envelope stays.
    const bad = envelope({ event_id: hex(14) }, [
      [{ type: 'replay_event' }, JSON.stringify({ type: 'replay_event', replay_id: hex(14), segment_id: 0, timestamp: t / 1000 })],
      [{ type: 'replay_recording' }, `{"segment_id":0}\nnot json`],
    ]);
    const answer = (await (await post('envelope', bad)).json()) as { skipped: Array<{ reason: string }> };
    expect(answer.skipped).toHaveLength(1);
  });
});

describe('store endpoint', () => {
  it('takes one event; a body that is not JSON is 400; an unusable event is 400', async () => {
    const res = await post('store', JSON.stringify({ ...sentryEvent(13), exception: undefined, logentry: { message: 'low %s', params: ['stock'] } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: hex(13) });
    const event = await getEvent(hex(13));
    expect(event.message).toBe('low stock');
    expect(event.exception).toMatchObject({ type: 'Message', value: 'low stock' });
    await expectError(await post('store', '{oops'), 400, 'invalid_json');
    await expectError(await post('store', '{}'), 400, 'validation_failed');
  });
});

describe('CORS and rate limits', () => {
  it('answers the preflight and puts Access-Control-Allow-Origin on answers; a project can restrict origins', async () => {
    const pre = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const res = await post('envelope', envelope({}, [[{ type: 'event' }, JSON.stringify(sentryEvent(14))]]), { origin: 'https://shop.example.com' });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    await catalogOf(svc.service.host).setAllowedOrigins('other', ['https://other.example.com']);
    const denied = await fetch(`${svc.baseUrl}/api/2/envelope/`, { method: 'OPTIONS', headers: { origin: 'https://evil.example.com' } });
    expect(denied.status).toBe(403);
  });

  it('answers 429 with Retry-After and X-Sentry-Rate-Limits past the key rate limit', async () => {
    const config = parse(readFileSync(join(import.meta.dirname, '../../config/default.yaml'), 'utf8')) as { service: Record<string, unknown> };
    config.service.limits = { rate_limit: { requests_per_second: 1, burst: 1 } };
    const limited = await startService({ yaml: stringify(config) });
    try {
      const [project] = ((await (await limited.api('/v1/projects')).json()) as { data: ProjectBody[] }).data;
      const url = `${limited.baseUrl}/api/${project.ingest_id}/envelope/?sentry_key=${new URL(project.dsn).username}`;
      const body = envelope({}, [[{ type: 'client_report' }, JSON.stringify({ discarded_events: [] })]]);
      const statuses: Response[] = [];
      for (let i = 0; i < 3; i++) statuses.push(await fetch(url, { method: 'POST', body }));
      const refused = statuses.find((r) => r.status === 429);
      expect(refused).toBeDefined();
      expect(refused?.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused?.headers.get('x-sentry-rate-limits')).toMatch(/^\d+::key$/);
    } finally {
      await limited.stop();
    }
  });
});

describe('attachment retention', () => {
  it('removes the attachments (rows and bytes) of the events retention removes, and keeps bytes another attachment still has', async () => {
    const dayS = 24 * 3600;
    const shared = 'the same bytes in an old and a new event';
    const send = (n: number, timestamp: number, attachments: Array<[string, string]>) =>
      post(
        'envelope',
        envelope({ event_id: hex(n) }, [
          [{ type: 'event' }, JSON.stringify(sentryEvent(n, { timestamp }))],
          ...attachments.map(([name, bytes]): [Record<string, unknown>, string] => [{ type: 'attachment', filename: name }, bytes]),
        ]),
      );
    expect(
      (
        await send(30, now() - 20 * dayS, [
          ['old-only.txt', 'only in the old event'],
          ['shared.txt', shared],
        ])
      ).status,
    ).toBe(200);
    expect((await send(31, now(), [['shared.txt', shared]])).status).toBe(200);
    const old = await getEvent(hex(30));
    const sha = (name: string) => (old.attachments as Json[]).find((a) => a.name === name)?.sha256 as string;
    const dir = join(svc.service.host.settings.data_dir, 'attachments');
    expect(readFileSync(join(dir, sha('old-only.txt')), 'utf8')).toBe('only in the old event');

    const result = await svc.service.runRetention({ events_days: 10 });
    expect(result.deletedRows['attachments:event_attachments']).toBe(2);
    expect((await svc.api(`/v1/events/${hex(30)}`)).status).toBe(404);
    expect((await svc.api(`/v1/events/${hex(30)}/attachments/${(old.attachments as Json[])[0].id as string}`)).status).toBe(404);
    expect(() => readFileSync(join(dir, sha('old-only.txt')))).toThrow(/ENOENT/);
    // The new event keeps its attachment, bytes included.
    const kept = await getEvent(hex(31));
    expect(kept.attachments).toEqual([expect.objectContaining({ name: 'shared.txt', sha256: sha('shared.txt') })]);
    const res = await svc.api(`/v1/events/${hex(31)}/attachments/${(kept.attachments as Json[])[0].id as string}`);
    expect(await res.text()).toBe(shared);
    const rowsLeft = await databaseOf(svc.service.host)
      .reader()
      .runAndReadAll("SELECT count(*) FROM event_attachments WHERE event_id LIKE '00000000-%-00000000001e'");
    expect(Number(rowsLeft.getRows()[0][0])).toBe(0);
  });
});
