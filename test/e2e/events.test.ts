// End to end: POST /v1/events and the event reads, against the real service on loopback.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { randomUUID } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { expectError, type ErrorBody, type Ack } from '../support/http.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
  await catalogOf(svc.service.host).createProject({ id: 'paging', name: 'Paging' });
  await catalogOf(svc.service.host).createProject({ id: 'filters', name: 'Filters' });
});

afterAll(async () => {
  await svc?.stop();
});

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PERMALINK = /^http:\/\/faultline\.test\/issues\/([^/]+)$/;

async function post(event: unknown, path = '/v1/events', init: RequestInit & { key?: string | null } = {}): Promise<Response> {
  return svc.api(path, { method: 'POST', body: JSON.stringify(event), ...init });
}

async function ingest(event: Record<string, unknown>, path = '/v1/events'): Promise<Ack> {
  const res = await post(event, path);
  const text = await res.text();
  expect(res.status, text).toBe(202);
  return JSON.parse(text) as Ack;
}

function issueOf(ack: Ack): string {
  const match = PERMALINK.exec(ack.permalink);
  expect(match, ack.permalink).not.toBeNull();
  return match![1];
}

async function getEvent(id: string): Promise<Record<string, any>> {
  const res = await svc.api(`/v1/events/${id}`);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}

interface ListPage {
  data: Array<Record<string, any>>;
  has_more: boolean;
  next_cursor: string | null;
}

async function list(query: string): Promise<ListPage> {
  const res = await svc.api(`/v1/events?${/(^|&)project_id=/.test(query) ? '' : 'project_id=default&'}${query}`);
  const text = await res.text();
  expect(res.status, `${query}: ${text}`).toBe(200);
  return JSON.parse(text) as ListPage;
}

describe('POST /v1/events then GET /v1/events/{id}', () => {
  it('round-trips every field of the event and adds what the pipeline derived', async () => {
    const id = randomUUID();
    const sent = fullEvent({ id, timestamp: '2026-11-01T13:00:05.123+01:00' });
    const before = Date.now();
    const res = await post(sent);
    const after = Date.now();
    expect(res.status).toBe(202);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const ack = (await res.json()) as Ack;
    expect(Object.keys(ack).sort()).toEqual(['id', 'permalink', 'status']);
    expect(ack.id).toBe(id);
    expect(ack.status).toBe('queued');
    const issueId = issueOf(ack);

    const got = await getEvent(id);
    // The event as sent, field by field.
    expect(got.id).toBe(id);
    expect(got.timestamp).toBe('2026-11-01T12:00:05.123Z');
    expect(got.environment).toBe(sent.environment);
    expect(got.release).toBe(sent.release);
    expect(got.level).toBe(sent.level);
    expect(got.message).toBe(sent.message);
    expect(got.platform).toBe(sent.platform);
    const exception = sent.exception as { type: string; value: string; stacktrace: unknown[] };
    expect(got.exception.type).toBe(exception.type);
    expect(got.exception.value).toBe(exception.value);
    expect(got.exception.stacktrace).toEqual(exception.stacktrace);
    expect(got.exception.raw_stacktrace).toEqual(exception.stacktrace);
    expect(got.user).toEqual(sent.user);
    expect(got.tags).toEqual(sent.tags);
    expect(got.trace_id).toBe(sent.trace_id);
    expect(got.replay_id).toBe(sent.replay_id);
    expect(got.breadcrumbs).toEqual(sent.breadcrumbs);
    expect(got.contexts).toEqual(sent.contexts);
    expect(got.request).toEqual(sent.request);
    expect(got.sdk).toEqual(sent.sdk);

    // What the service adds.
    expect(got.project_id).toBe('default');
    expect(got.issue_id).toBe(issueId);
    expect(typeof got.received_at).toBe('string');
    expect(got.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const received = Date.parse(got.received_at);
    expect(received).toBeGreaterThanOrEqual(before - 1000);
    expect(received).toBeLessThanOrEqual(after + 1000);
    expect(Array.isArray(got.processing_errors)).toBe(true);
    expect(got.processing_errors).toEqual([]);

    // Root cause: the culprit in-app frame (the innermost one) and a one-line summary.
    const culprit = exception.stacktrace[2] as { filename: string; function: string; lineno: number };
    expect(got.root_cause.type).toBe(exception.type);
    expect(got.root_cause.value).toBe(exception.value);
    expect(got.root_cause.frame).toEqual(exception.stacktrace[2]);
    expect(typeof got.root_cause.summary).toBe('string');
    expect(got.root_cause.summary).not.toContain('\n');
    expect(got.root_cause.summary).toContain(exception.type);
    expect(got.root_cause.summary).toContain(exception.value);
    expect(got.root_cause.summary).toContain(culprit.function);
    expect(got.root_cause.summary).toContain(`${culprit.filename}:${culprit.lineno}`);
  });

  it('accepts a 32-hex-digit id and serves it under the dashed lower-case UUID', async () => {
    const dashed = randomUUID();
    const hex = dashed.replace(/-/g, '').toUpperCase();
    const ack = await ingest(fullEvent({ id: hex }));
    expect(ack.id).toBe(dashed);
    expect((await getEvent(dashed)).id).toBe(dashed);
    expect((await getEvent(hex)).id).toBe(dashed);
  });

  it('is idempotent: the same id twice gives the same ack and one stored copy', async () => {
    const id = randomUUID();
    const event = fullEvent({ id, environment: 'idempotency' });
    const first = await ingest(event);
    const second = await ingest(event);
    expect(first.id).toBe(id);
    expect(second).toEqual(first);
    const page = await list('environment=idempotency');
    expect(page.data.map((e) => e.id)).toEqual([id]);
  });

  it('a repeated id keeps the first event: same ack, no second copy, the issue counted once', async () => {
    const id = randomUUID();
    const first = fullEvent({ id, environment: 'idempotency-2', exception: { type: 'OnceError', value: 'first body' } });
    const other = fullEvent({ id, environment: 'idempotency-2', exception: { type: 'OtherError', value: 'second body' } });
    const ack1 = await ingest(first);
    const ack2 = await ingest(other);
    expect(ack2).toEqual(ack1);
    const got = await getEvent(id);
    expect(got.exception.type).toBe('OnceError');
    expect(got.issue_id).toBe(issueOf(ack1));
    const issue = (await (await svc.api(`/v1/issues/${issueOf(ack1)}`)).json()) as { count: number };
    expect(issue.count).toBe(1);
    expect((await list('environment=idempotency-2')).data.map((e) => e.id)).toEqual([id]);
  });

  it('concurrent posts of one id store one copy and count the issue once', async () => {
    const id = randomUUID();
    const event = fullEvent({ id, environment: 'idempotency-3', exception: { type: 'RaceError', value: 'raced' } });
    const acks = await Promise.all(Array.from({ length: 8 }, () => ingest(event)));
    for (const ack of acks) expect(ack).toEqual(acks[0]);
    expect((await list('environment=idempotency-3')).data.map((e) => e.id)).toEqual([id]);
    const issue = (await (await svc.api(`/v1/issues/${issueOf(acks[0])}`)).json()) as { count: number };
    expect(issue.count).toBe(1);
  });

  it.each([
    ['2026-11-01T12:00:05Z', '2026-11-01T12:00:05.000Z'],
    ['2026-11-01T12:00:05.123456Z', '2026-11-01T12:00:05.123Z'],
    ['2026-11-01T14:00:05.5+02:00', '2026-11-01T12:00:05.500Z'],
    ['2026-11-01T12:00:05', '2026-11-01T12:00:05.000Z'],
  ])('normalizes the timestamp %s to %s', async (sent, stored) => {
    const ack = await ingest(fullEvent({ id: randomUUID(), timestamp: sent }));
    expect((await getEvent(ack.id)).timestamp).toBe(stored);
  });

  it('accepts application/json with a charset', async () => {
    const event = fullEvent({ id: randomUUID() });
    const res = await post(event, '/v1/events', { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status, await res.clone().text()).toBe(202);
    expect(((await res.json()) as Ack).id).toBe(event.id);
  });

  it('accepts the charset UTF-8 however it is spelled', async () => {
    for (const type of ['application/json; charset=UTF-8', 'application/json;charset="utf8"', 'application/json; Charset=Utf-8'])
      expect((await post(fullEvent({ id: randomUUID() }), '/v1/events', { headers: { 'content-type': type } })).status, type).toBe(202);
  });

  // Issue #10, item 2: numbers and booleans were turned into strings without a word.
  it('stores numeric and boolean tag values as strings, noting each in processing_errors', async () => {
    const ack = await ingest(fullEvent({ id: randomUUID(), tags: { route: '/checkout', attempt: 3, ratio: 0.25, beta: true } }));
    const got = await getEvent(ack.id);
    expect(got.tags).toEqual({ route: '/checkout', attempt: '3', ratio: '0.25', beta: 'true' });
    expect(got.processing_errors).toEqual([
      { type: 'tag_value_converted', path: 'tags.attempt', message: 'number 3 stored as the string "3"' },
      { type: 'tag_value_converted', path: 'tags.ratio', message: 'number 0.25 stored as the string "0.25"' },
      { type: 'tag_value_converted', path: 'tags.beta', message: 'boolean true stored as the string "true"' },
    ]);
  });

  it('stores and returns dist, debug_meta and the frames debug_id, instruction_addr and module (issue #11)', async () => {
    const debugId = 'C73BCDCC-2669-4BF6-81D3-E4AE73FB11FD';
    const frames = [
      { filename: 'https://shop.example.com/static/app.min.js', lineno: 1, colno: 9, debug_id: debugId, module: 'app' },
      { function: 'crash', instruction_addr: '0x7FF6A3C41ABC', module: 'libapp.so' },
    ];
    const ack = await ingest(
      fullEvent({
        id: randomUUID(),
        dist: 'web-42',
        debug_meta: {
          images: [
            { type: 'sourcemap', code_file: 'https://shop.example.com/static/app.min.js', debug_id: debugId },
            { type: 'elf', debug_id: '3249d99d-0c40-4931-8610-f4e4fb0b6936-1', image_addr: '0x7FF6A3C40000', image_size: 4096 },
            { type: 'wasm', debug_id: debugId },
          ],
        },
        exception: { type: 'Error', value: 'boom', stacktrace: frames },
      }),
    );
    const got = await getEvent(ack.id);
    expect(got.dist).toBe('web-42');
    expect(got.debug_meta).toEqual({
      images: [
        { type: 'sourcemap', code_file: 'https://shop.example.com/static/app.min.js', debug_id: 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd' },
        { type: 'elf', debug_id: '3249d99d-0c40-4931-8610-f4e4fb0b6936-1', image_addr: '0x7ff6a3c40000', image_size: 4096 },
      ],
    });
    const stored = [
      { ...frames[0], debug_id: 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd' },
      { ...frames[1], instruction_addr: '0x7ff6a3c41abc' },
    ];
    expect(got.exception.stacktrace).toEqual(stored);
    expect(got.exception.raw_stacktrace).toEqual(stored);
    // Nothing was ever uploaded for this project: symbolication has nothing to look for or report.
    expect(got.processing_errors).toEqual([
      { type: 'unsupported_image', path: 'debug_meta.images[2]', message: 'image type "wasm" is not one symbolication uses, discarded' },
    ]);
  });

  it('refuses a malformed debug image or frame debug id with the field path', async () => {
    const res = await post(
      fullEvent({
        debug_meta: { images: [{ type: 'sourcemap', code_file: 'app.js', debug_id: 'nope' }] },
        exception: { type: 'Error', value: 'boom', stacktrace: [{ filename: 'app.js', instruction_addr: 'ff' }] },
      }),
    );
    const body = await expectError(res, 400, 'validation_failed');
    expect(body.error.details.map((d) => d.path)).toEqual(['exception.stacktrace[0].instruction_addr', 'debug_meta.images[0].debug_id']);
  });

  it('assigns a UUIDv7 when the id is omitted', async () => {
    const event = fullEvent({ environment: 'assigned-id' });
    delete event.id;
    const ack = await ingest(event);
    expect(ack.id).toMatch(UUID_V7);
    const got = await getEvent(ack.id);
    expect(got.id).toBe(ack.id);
    expect(got.issue_id).toBe(issueOf(ack));
  });

  it('marks frames of installed packages and of the Sentry SDK not in-app, whatever the SDK said (browser SDKs say in_app for every frame)', async () => {
    const frame = (filename: string, fn: string) => ({ filename, function: fn, lineno: 3, colno: 9, in_app: true });
    const ack = await ingest(
      fullEvent({
        environment: 'in-app',
        exception: {
          type: 'TypeError',
          value: 'x is undefined',
          stacktrace: [
            frame('webpack://shop/node_modules/@sentry/browser/build/npm/esm/helpers.js', 'sentryWrapped'),
            frame('app:///node_modules/react-dom/cjs/react-dom.development.js', 'invokeGuardedCallback'),
            frame('app:///src/cart.ts', 'addToCart'),
            frame('@sentry-internal/replay/index.js', 'record'),
          ],
        },
      }),
    );
    const got = await getEvent(ack.id);
    expect(got.exception.stacktrace.map((f: { in_app?: boolean }) => f.in_app)).toEqual([false, false, true, false]);
    // The culprit is the app's frame, not the SDK's.
    expect(got.culprit).toContain('addToCart');
  });

  it('answers 404 not_found for an unknown event id', async () => {
    const body = await expectError(await svc.api(`/v1/events/${randomUUID()}`), 404, 'not_found');
    expect(body.error.details).toEqual([]);
  });
});

describe('POST /v1/events refusals', () => {
  it('lists every validation problem with its path', async () => {
    const event = fullEvent({
      id: 'not-a-uuid',
      timestamp: 'yesterday',
      release: 42,
      level: 'bogus',
      exception: {
        type: '',
        value: 'x',
        stacktrace: [
          { filename: 'a.js', lineno: 1 },
          { filename: 'b.js', lineno: 'ten' },
        ],
      },
    });
    delete event.environment;
    const body = await expectError(await post(event), 400, 'validation_failed');
    const paths = body.error.details.map((d) => d.path).sort();
    expect(paths).toEqual(['environment', 'exception.stacktrace[1].lineno', 'exception.type', 'id', 'level', 'release', 'timestamp'].sort());
    for (const detail of body.error.details) {
      expect(typeof detail.message).toBe('string');
      expect(detail.message.length).toBeGreaterThan(0);
    }
    expect(body.error.details.find((d) => d.path === 'environment')?.message).toMatch(/required/i);
  });

  it('refuses malformed JSON with 400 invalid_json', async () => {
    await expectError(await svc.api('/v1/events', { method: 'POST', body: '{"timestamp": ' }), 400, 'invalid_json');
  });

  it('refuses an empty body with 400', async () => {
    const res = await svc.api('/v1/events', { method: 'POST', body: '' });
    expect(res.status).toBe(400);
    await expectError(res, 400, 'invalid_json');
  });

  it('refuses a JSON array with 400 validation_failed', async () => {
    const body = await expectError(await post([fullEvent()]), 400, 'validation_failed');
    expect(body.error.details.map((d) => d.path)).toEqual(['']);
  });

  it.each([['null'], ['42'], ['"event"']])('refuses the JSON value %s with 400 validation_failed', async (text) => {
    const body = await expectError(await svc.api('/v1/events', { method: 'POST', body: text }), 400, 'validation_failed');
    expect(body.error.details.map((d) => d.path)).toEqual(['']);
  });

  it('refuses text/plain with 415 unsupported_media_type', async () => {
    const res = await post(fullEvent(), '/v1/events', { headers: { 'content-type': 'text/plain' } });
    await expectError(res, 415, 'unsupported_media_type');
  });

  // Issue #10, item 4: bodies are read as UTF-8 whatever the charset said.
  it.each(['application/json; charset=iso-8859-1', 'application/json; charset=utf-16', 'application/json;charset="UTF-16LE"'])(
    'refuses %s with 415 unsupported_media_type',
    async (type) => {
      const res = await post(fullEvent(), '/v1/events', { headers: { 'content-type': type } });
      const body = await expectError(res, 415, 'unsupported_media_type');
      expect(body.error.message).toMatch(/^charset .* is not supported; send UTF-8/);
    },
  );

  it('refuses content-encoding br with 415', async () => {
    const res = await svc.api('/v1/events', {
      method: 'POST',
      body: JSON.stringify(fullEvent()),
      headers: { 'content-encoding': 'br' },
    });
    await expectError(res, 415, 'unsupported_media_type');
  });

  const oversized = () => Buffer.from(JSON.stringify(fullEvent({ message: 'x'.repeat(1024 * 1024 + 16) })));

  it('refuses a body over 1 MiB with a truthful content-length: 413', async () => {
    const body = oversized();
    const res = await svc.api('/v1/events', { method: 'POST', body, headers: { 'content-length': String(body.length) } });
    await expectError(res, 413, 'payload_too_large');
  });

  it('refuses a body over 1 MiB sent without content-length (chunked): 413', async () => {
    const body = oversized();
    const chunk = 64 * 1024;
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.length) return controller.close();
        controller.enqueue(body.subarray(offset, offset + chunk));
        offset += chunk;
      },
    });
    const res = await svc.api('/v1/events', { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'payload_too_large');
  });

  it('accepts a body just under 1 MiB', async () => {
    const event = fullEvent({ environment: 'near-limit' });
    const overhead = Buffer.byteLength(JSON.stringify({ ...event, message: '' }));
    const ack = await ingest({ ...event, message: 'y'.repeat(1024 * 1024 - overhead - 8) });
    expect((await getEvent(ack.id)).environment).toBe('near-limit');
  });

  it('accepts gzip and deflate bodies', async () => {
    const gz = fullEvent({ id: randomUUID(), environment: 'gzip' });
    const res1 = await svc.api('/v1/events', { method: 'POST', body: gzipSync(JSON.stringify(gz)), headers: { 'content-encoding': 'gzip' } });
    expect(res1.status, await res1.clone().text()).toBe(202);
    expect(((await res1.json()) as Ack).id).toBe(gz.id);
    expect((await getEvent(gz.id as string)).environment).toBe('gzip');

    const df = fullEvent({ id: randomUUID(), environment: 'deflate' });
    const res2 = await svc.api('/v1/events', { method: 'POST', body: deflateSync(JSON.stringify(df)), headers: { 'content-encoding': 'deflate' } });
    expect(res2.status, await res2.clone().text()).toBe(202);
    expect(((await res2.json()) as Ack).id).toBe(df.id);
    expect((await getEvent(df.id as string)).environment).toBe('deflate');
  });

  it('refuses a gzip bomb that inflates past 1 MiB with 413', async () => {
    const bomb = gzipSync(JSON.stringify(fullEvent({ message: 'z'.repeat(8 * 1024 * 1024) })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const res = await svc.api('/v1/events', { method: 'POST', body: bomb, headers: { 'content-encoding': 'gzip' } });
    await expectError(res, 413, 'payload_too_large');
  });

  /** A valid event whose contexts hold an array nested `depth` levels deep (a few bytes per level). */
  const deeplyNested = (depth: number, overrides: Record<string, unknown> = {}) =>
    JSON.stringify(fullEvent({ id: randomUUID(), contexts: { x: { y: '__DEEP__' } }, ...overrides })).replace(
      '"__DEEP__"',
      '['.repeat(depth) + '1' + ']'.repeat(depth),
    );

  it('refuses a body nested absurdly deep with 400, not a retryable 5xx', async () => {
    const body = deeplyNested(50_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const res = await svc.api('/v1/events', { method: 'POST', body });
    const text = await res.text();
    // A client error: a retry cannot succeed, so 503 ("retry later") is wrong.
    expect(res.status, text).toBe(400);
    expect(['validation_failed', 'invalid_json']).toContain((JSON.parse(text) as ErrorBody).error.code);
  });

  it('one bad event does not fail the events committed alongside it', async () => {
    const good = Array.from({ length: 10 }, () => fullEvent({ id: randomUUID(), environment: 'bystanders' }));
    const responses = await Promise.all([
      ...good.slice(0, 5).map((e) => post(e)),
      svc.api('/v1/events', { method: 'POST', body: deeplyNested(50_000, { environment: 'bystanders' }) }),
      ...good.slice(5).map((e) => post(e)),
    ]);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((_, i) => i !== 5)).toEqual(Array(10).fill(202));
    const stored = (await list('environment=bystanders&limit=100')).data.map((e) => e.id as string);
    expect(stored.sort()).toEqual(good.map((e) => e.id as string).sort());
  });

  it('refuses a corrupt gzip body with 400', async () => {
    const res = await svc.api('/v1/events', { method: 'POST', body: Buffer.from('not gzip at all'), headers: { 'content-encoding': 'gzip' } });
    expect(res.status).toBe(400);
    await expectError(res, 400, 'invalid_json');
  });
});

describe('GET /v1/events pagination', () => {
  const TOTAL = 250;
  const events: Array<{ id: string; timestamp: string }> = [];

  beforeAll(async () => {
    const base = Date.UTC(2026, 0, 1, 0, 0, 0);
    for (let i = 0; i < TOTAL; i++) {
      // Groups of three share a timestamp (the id breaks the tie); some differ only in milliseconds.
      const ms = base + Math.floor(i / 3) * 1000 + (i % 7 === 0 ? 1 : 0);
      events.push({ id: randomUUID(), timestamp: new Date(ms).toISOString() });
    }
    // Post in a shuffled order, a few at a time.
    const order = [...events].sort(() => Math.random() - 0.5);
    for (let i = 0; i < order.length; i += 25) {
      await Promise.all(
        order.slice(i, i + 25).map((e) => ingest(fullEvent({ id: e.id, timestamp: e.timestamp, environment: 'paging' }), '/v1/events?project_id=paging')),
      );
    }
  });

  const expected = () =>
    [...events].sort((a, b) => (a.timestamp === b.timestamp ? (a.id < b.id ? 1 : -1) : a.timestamp < b.timestamp ? 1 : -1)).map((e) => e.id);

  it('walks every event exactly once, newest first, ties broken by id desc', async () => {
    expect(new Set(events.map((e) => e.timestamp)).size).toBeLessThan(TOTAL);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ListPage = await list(`project_id=paging&limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(37);
      if (page.has_more) {
        expect(page.data.length).toBe(37);
        expect(typeof page.next_cursor).toBe('string');
      } else {
        expect(page.next_cursor).toBeNull();
      }
      seen.push(...page.data.map((e) => e.id as string));
      cursor = page.next_cursor;
      expect(pages).toBeLessThanOrEqual(10);
    } while (cursor);
    expect(pages).toBe(Math.ceil(TOTAL / 37));
    expect(new Set(seen).size).toBe(TOTAL);
    expect(seen).toEqual(expected());
  });

  it('says has_more false on a last page that is exactly full', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ListPage = await list(`project_id=paging&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages++;
      ids.push(...page.data.map((e) => e.id as string));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor && pages < 10);
    expect(pages).toBe(5);
    expect(ids).toEqual(expected());
    const whole = await list(`project_id=paging&limit=${TOTAL}`);
    expect(whole.has_more).toBe(false);
    expect(whole.next_cursor).toBeNull();
  });

  it('defaults to 50 per page', async () => {
    const page = await list('project_id=paging');
    expect(page.data.length).toBe(50);
    expect(page.has_more).toBe(true);
    expect(page.data.map((e) => e.id)).toEqual(expected().slice(0, 50));
  });

  it('takes limit 1 and 1000', async () => {
    const one = await list('project_id=paging&limit=1');
    expect(one.data.map((e) => e.id)).toEqual(expected().slice(0, 1));
    expect(one.has_more).toBe(true);
    const all = await list('project_id=paging&limit=1000');
    expect(all.data.length).toBe(TOTAL);
    expect(all.has_more).toBe(false);
    expect(all.next_cursor).toBeNull();
  });

  it.each(['0', '1001', 'abc', '-5', '2.5'])('refuses limit=%s with 400 invalid_parameter', async (limit) => {
    const body = await expectError(await svc.api(`/v1/events?project_id=paging&limit=${limit}`), 400, 'invalid_parameter');
    expect(body.error.details.map((d) => d.path)).toEqual(['limit']);
  });

  it('refuses a cursor it did not issue with 400 invalid_parameter', async () => {
    for (const cursor of ['garbage', 'bm90LWpzb24', Buffer.from('[1,2,3]').toString('base64url')]) {
      const body = await expectError(await svc.api(`/v1/events?project_id=paging&cursor=${cursor}`), 400, 'invalid_parameter');
      expect(body.error.details.map((d) => d.path)).toEqual(['cursor']);
    }
  });
});

describe('GET /v1/events filters', () => {
  const ids: Record<string, string> = {};
  const issues: Record<string, string> = {};
  const frames = (fn: string) => [{ filename: `src/${fn}.js`, function: fn, lineno: 10, colno: 2, in_app: true }];

  beforeAll(async () => {
    const defs: Record<string, Record<string, unknown>> = {
      e1: {
        timestamp: '2026-03-01T10:00:00.000Z',
        environment: 'production',
        release: 'web@1.0.0',
        level: 'error',
        message: 'checkout failed',
        exception: { type: 'TypeError', value: "Cannot read properties of null (reading 'x')", stacktrace: frames('checkout') },
        user: { id: 'u-1', email: 'ada@example.com' },
        trace_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1',
        tags: { route: '/checkout', region: 'eu west' },
      },
      e2: {
        timestamp: '2026-03-02T10:00:00.000Z',
        environment: 'staging',
        release: 'web@1.1.0',
        level: 'warning',
        message: 'cart overflow',
        exception: { type: 'RangeError', value: 'Invalid array length', stacktrace: frames('cart') },
        user: { id: 'u-2', email: 'bob@example.com' },
        trace_id: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2',
        tags: { route: '/cart', region: 'us east' },
      },
      e3: {
        timestamp: '2026-03-03T10:00:00.000Z',
        environment: 'production',
        release: 'web@1.1.0',
        level: 'fatal',
        message: 'Payment Declined',
        exception: { type: 'ReferenceError', value: 'stripe is not defined', stacktrace: frames('pay') },
        user: { id: 'u-1', email: 'bob@example.com' },
        trace_id: 'ccccccccccccccccccccccccccccccc3',
        tags: { route: '/pay', region: 'eu', 'browser.name': 'Firefox' },
      },
      e4: {
        timestamp: '2026-03-04T10:00:00.000Z',
        environment: 'development',
        release: 'api@2.0.0',
        level: 'info',
        message: undefined,
        exception: { type: 'Error', value: 'timeout after 30s', stacktrace: frames('poll') },
        user: undefined,
        trace_id: undefined,
        tags: undefined,
      },
      // The same error as e1 (same type and frames), in another release and line: e1's issue.
      e5: {
        timestamp: '2026-03-05T10:00:00.000Z',
        environment: 'production',
        release: 'web@1.2.0',
        level: 'error',
        message: 'checkout failed again',
        exception: {
          type: 'TypeError',
          value: "Cannot read properties of null (reading 'x')",
          stacktrace: [{ ...frames('checkout')[0], lineno: 99, colno: 5 }],
        },
        user: { id: 'u-5', email: 'eve@example.com' },
        trace_id: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeee5',
        tags: { route: '/checkout/v2', region: 'eu west' },
      },
    };
    for (const [name, overrides] of Object.entries(defs)) {
      const ack = await ingest(fullEvent({ id: randomUUID(), ...overrides }), '/v1/events?project_id=filters');
      ids[name] = ack.id;
      issues[name] = issueOf(ack);
    }
    expect(issues.e5).toBe(issues.e1);
    expect(new Set([issues.e1, issues.e2, issues.e3, issues.e4]).size).toBe(4);
  });

  async function names(query: string): Promise<string[]> {
    const page = await list(`project_id=filters&${query}`);
    const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
    return page.data.map((e) => byId.get(e.id as string) ?? `unknown:${e.id as string}`);
  }

  it('lists everything newest first without a filter', async () => {
    expect(await names('')).toEqual(['e5', 'e4', 'e3', 'e2', 'e1']);
  });

  it('filters by environment, release, level and issue_id', async () => {
    expect(await names('environment=production')).toEqual(['e5', 'e3', 'e1']);
    expect(await names('environment=staging')).toEqual(['e2']);
    expect(await names('release=web%401.1.0')).toEqual(['e3', 'e2']);
    expect(await names('release=api@2.0.0')).toEqual(['e4']);
    expect(await names('level=warning')).toEqual(['e2']);
    expect(await names('level=fatal')).toEqual(['e3']);
    expect(await names(`issue_id=${issues.e1}`)).toEqual(['e5', 'e1']);
    expect(await names(`issue_id=${issues.e4}`)).toEqual(['e4']);
    expect(await names('environment=production&release=web@1.1.0')).toEqual(['e3']);
    expect(await names('environment=nowhere')).toEqual([]);
  });

  it('refuses an unknown level with 400 invalid_parameter', async () => {
    await expectError(await svc.api('/v1/events?project_id=filters&level=bogus'), 400, 'invalid_parameter');
  });

  it('filters by start (inclusive) and end (exclusive)', async () => {
    expect(await names('start=2026-03-02T10:00:00Z')).toEqual(['e5', 'e4', 'e3', 'e2']);
    expect(await names('end=2026-03-03T10:00:00Z')).toEqual(['e2', 'e1']);
    expect(await names('start=2026-03-02T00:00:00Z&end=2026-03-04T00:00:00Z')).toEqual(['e3', 'e2']);
    expect(await names(`start=${encodeURIComponent('2026-03-03T11:00:00+01:00')}&end=2026-03-03T10:00:00.001Z`)).toEqual(['e3']);
    expect(await names('start=2026-03-04')).toEqual(['e5', 'e4']);
  });

  it.each(['yesterday', '2026-13-45T99:00:00Z', '1700000000'])('refuses start=%s with 400 invalid_parameter', async (start) => {
    const body = await expectError(await svc.api(`/v1/events?project_id=filters&start=${start}`), 400, 'invalid_parameter');
    expect(body.error.details.map((d) => d.path)).toEqual(['start']);
  });

  it('refuses a bad end with 400 invalid_parameter', async () => {
    const body = await expectError(await svc.api('/v1/events?project_id=filters&end=soon'), 400, 'invalid_parameter');
    expect(body.error.details.map((d) => d.path)).toEqual(['end']);
  });

  const q = (query: string) => names(`query=${encodeURIComponent(query)}`);

  it('searches free text over type, value and message, case-insensitively', async () => {
    expect(await q('ARRAY')).toEqual(['e2']); // value
    expect(await q('referenceerr')).toEqual(['e3']); // type
    expect(await q('payment declined')).toEqual(['e3']); // every term must match
    expect(await q('payment overflow')).toEqual([]);
    expect(await q('payment')).toEqual(['e3']); // message
    expect(await q('checkout')).toEqual(['e5', 'e1']); // message
    expect(await q('TIMEOUT after')).toEqual(['e4']);
    expect(await q('"reading \'x\'"')).toEqual(['e5', 'e1']);
    expect(await q('no-such-text')).toEqual([]);
    expect(await q('100%')).toEqual([]);
    expect(await q('stripe_is')).toEqual([]); // _ is not a wildcard
    expect(await q('stripe is')).toEqual(['e3']);
  });

  it('searches with the release: token', async () => {
    expect(await q('release:web@1.1.0')).toEqual(['e3', 'e2']);
    expect(await q('release:"api@2.0.0"')).toEqual(['e4']);
  });

  it('searches with the environment: token', async () => {
    expect(await q('environment:production')).toEqual(['e5', 'e3', 'e1']);
    expect(await q('environment:staging')).toEqual(['e2']);
  });

  it('searches with the level: token', async () => {
    expect(await q('level:fatal')).toEqual(['e3']);
    expect(await q('environment:production level:error')).toEqual(['e5', 'e1']);
  });

  it('searches with user.id:, user.email: and trace_id: tokens', async () => {
    expect(await q('user.id:u-1')).toEqual(['e3', 'e1']);
    expect(await q('user.email:bob@example.com')).toEqual(['e3', 'e2']);
    expect(await q('trace_id:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2')).toEqual(['e2']);
    expect(await q('trace_id:CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC3')).toEqual(['e3']);
  });

  it('searches with tags.<key>: tokens, quoted values included', async () => {
    expect(await q('tags.route:/cart')).toEqual(['e2']);
    expect(await q('tags.region:"eu west"')).toEqual(['e5', 'e1']);
    expect(await q('tags.region:eu')).toEqual(['e3']);
    expect(await q('tags.region:"eu west" tags.route:/checkout')).toEqual(['e1']);
    expect(await q('tags.nothere:x')).toEqual([]);
    expect(await q('tags.browser.name:Firefox')).toEqual(['e3']);
    expect(await q('tags.route:/CART')).toEqual([]); // tag values match exactly
  });

  it('combines tokens with free text and with the parameters (all must hold)', async () => {
    expect(await q('user.id:u-1 payment')).toEqual(['e3']);
    expect(await names(`release=web@1.0.0&query=${encodeURIComponent('release:web@1.1.0')}`)).toEqual([]);
    expect(await names(`environment=production&query=${encodeURIComponent('environment:production')}`)).toEqual(['e5', 'e3', 'e1']);
    expect(await names(`level=error&query=${encodeURIComponent('level:fatal')}`)).toEqual([]);
    expect(await names(`issue_id=${issues.e1}&query=${encodeURIComponent('user.id:u-1')}`)).toEqual(['e1']);
    expect(await names(`environment=production&query=${encodeURIComponent('tags.region:"eu west" again')}`)).toEqual(['e5']);
  });
});
