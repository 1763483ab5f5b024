// Hostile input on the Sentry routes (issue #16): truncated envelopes, wrong lengths, bad JSON,
// wrong types in every field, huge headers, deep nesting, compression bombs in gzip, deflate and
// br. Each is answered with its documented 4xx (or a 200 that names what was skipped), never a
// 5xx, and the service keeps taking good envelopes.
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

let svc: TestService;
let publicKey: string;
let ingestId: number;

const hex = (n: number) => n.toString(16).padStart(32, '0');
const now = () => Date.now() / 1000;

function envelope(header: unknown, items: Array<[unknown, string | Buffer]>): Buffer {
  const parts: Buffer[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
  for (const [itemHeader, payload] of items) parts.push(Buffer.from(`${JSON.stringify(itemHeader)}\n`), Buffer.from(payload), Buffer.from('\n'));
  return Buffer.concat(parts);
}

function post(kind: 'envelope' | 'store', body: Buffer | string, headers: Record<string, string> = {}, id: number | string = ingestId): Promise<Response> {
  return fetch(`${svc.baseUrl}/api/${id}/${kind}/`, {
    method: 'POST',
    body,
    headers: { 'x-sentry-auth': `Sentry sentry_key=${publicKey}, sentry_version=7`, ...headers },
  });
}

/** Posts and expects no 5xx; gives the status and the body. */
async function survive(
  what: string,
  kind: 'envelope' | 'store',
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json }> {
  const res = await post(kind, body, headers);
  const text = await res.text();
  expect(res.status, `${what}: ${text}`).toBeLessThan(500);
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // an empty body (a 4xx from Node's parser) is fine
  }
  return { status: res.status, body: parsed };
}

function goodEvent(n: number, extra: Json = {}): Json {
  return { event_id: hex(n), timestamp: now(), platform: 'node', exception: { values: [{ type: 'Error', value: `good ${n}` }] }, ...extra };
}

beforeAll(async () => {
  svc = await startService();
  const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Json[] }).data;
  ingestId = project.ingest_id as number;
  publicKey = new URL(project.dsn as string).username;
});
afterAll(() => svc?.stop());

describe('hostile envelopes', () => {
  it('every prefix of a valid envelope is answered without a 5xx', async () => {
    const full = envelope({ event_id: hex(1), sent_at: new Date().toISOString() }, [
      [{ type: 'event', length: Buffer.byteLength(JSON.stringify(goodEvent(1))) }, JSON.stringify(goodEvent(1))],
      [{ type: 'attachment', filename: 'a.txt', length: 5 }, 'hello'],
      [{ type: 'session' }, JSON.stringify({ sid: hex(2), init: true, status: 'ok', attrs: { release: 'r@1' } })],
    ]);
    const statuses = new Set<number>();
    for (let cut = 0; cut < full.length; cut += 7) statuses.add((await survive(`cut at ${cut}`, 'envelope', full.subarray(0, cut))).status);
    expect(statuses).toContain(400); // the header itself cut
    expect(statuses).toContain(200); // items cut: skipped with a reason
  });

  it('wrong lengths, bad item headers and bad JSON are skipped with reasons; the rest is kept', async () => {
    const good = JSON.stringify(goodEvent(3));
    const cases: Array<[string, Buffer]> = [
      ['length too large', Buffer.from(`{}\n{"type":"event","length":99999999}\n${good}\n`)],
      ['length 1e308', Buffer.from(`{}\n{"type":"event","length":1e308}\n${good}\n`)],
      ['negative length', Buffer.from(`{}\n{"type":"event","length":-5}\n${good}\n`)],
      ['fractional length', Buffer.from(`{}\n{"type":"event","length":2.5}\n${good}\n`)],
      ['length as text', Buffer.from(`{}\n{"type":"event","length":"12"}\n${good}\n`)],
      ['length too small', Buffer.from(`{}\n{"type":"event","length":3}\n${good}\n`)],
      ['length zero', Buffer.from(`{}\n{"type":"event","length":0}\n\n`)],
      ['type not a string', Buffer.from(`{}\n{"type":7}\n${good}\n`)],
      ['type __proto__', Buffer.from(`{}\n{"type":"__proto__"}\n{}\n`)],
      ['item header an array', Buffer.from(`{}\n[1,2]\n${good}\n`)],
      ['envelope header null', Buffer.from(`null\n{"type":"event"}\n${good}\n`)],
      ['envelope header with odd fields', Buffer.from(`{"event_id":5,"dsn":{},"sent_at":[]}\n{"type":"event"}\n${good}\n`)],
      ['payload not JSON', Buffer.from(`{}\n{"type":"event"}\n{"a":\n`)],
      ['payload an array', Buffer.from(`{}\n{"type":"transaction"}\n[1]\n`)],
      ['only newlines', Buffer.from('\n\n\n\n')],
      ['binary garbage', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131) % 256))],
      ['invalid UTF-8', Buffer.concat([Buffer.from('{}\n{"type":"event"}\n{"message":"'), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}\n')])],
    ];
    for (const [what, body] of cases) await survive(what, 'envelope', body);
    const mixed = await survive('bad then good', 'envelope', Buffer.from(`{}\n{"type":"event","length":3}\nabcdef\n{"type":"event"}\n${good}\n`));
    expect(mixed.status).toBe(200);
    expect(mixed.body.id).toBe(hex(3));
    expect(mixed.body.skipped?.length).toBeGreaterThan(0);
  });

  it('wrong types in every field of events, transactions, spans, sessions, client reports and replays', async () => {
    const odd = [null, 0, -1, 1e308, 'x', '', [], {}, [null], [[1]], { values: 'x' }, true];
    const fields = [
      'event_id',
      'timestamp',
      'level',
      'platform',
      'logger',
      'message',
      'logentry',
      'exception',
      'stacktrace',
      'threads',
      'tags',
      'user',
      'request',
      'contexts',
      'breadcrumbs',
      'fingerprint',
      'release',
      'dist',
      'environment',
      'sdk',
      'debug_meta',
      'extra',
      'modules',
      'transaction',
      'server_name',
    ];
    for (const field of fields) {
      const items: Array<[unknown, string]> = odd.map((value) => [{ type: 'event' }, JSON.stringify(goodEvent(10, { [field]: value }))]);
      await survive(`event.${field}`, 'envelope', envelope({}, items));
      await survive(`store ${field}`, 'store', JSON.stringify(goodEvent(11, { [field]: odd[4] })));
    }
    const weirdFrames = [null, 1, 'x', { lineno: 'x', colno: -1, filename: 5, function: {}, in_app: 'yes', vars: [], pre_context: 'x' }];
    const exceptions = [
      { values: [null, 1, { type: 5, value: {}, stacktrace: { frames: weirdFrames }, mechanism: 'x' }] },
      { values: [{ stacktrace: { frames: 'x' } }, { stacktrace: null, mechanism: { handled: 'no', exception_id: 'x', parent_id: {} } }] },
    ];
    for (const exception of exceptions)
      await survive('exception', 'envelope', envelope({}, [[{ type: 'event' }, JSON.stringify(goodEvent(12, { exception }))]]));
    await survive(
      'debug_meta',
      'envelope',
      envelope({}, [[{ type: 'event' }, JSON.stringify(goodEvent(13, { debug_meta: { images: [null, 1, { debug_id: 5, type: {} }] } }))]]),
    );
    const transactions = [
      { contexts: { trace: { trace_id: 5, span_id: [] } } },
      { contexts: { trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) } }, start_timestamp: 'x', timestamp: -1 },
      {
        contexts: { trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) } },
        start_timestamp: now(),
        timestamp: 1e308,
        spans: [null, 1, 'x', { span_id: 5 }],
      },
      { contexts: { trace: { trace_id: 'x'.repeat(100_000), span_id: 'b'.repeat(16) } }, start_timestamp: now(), timestamp: now() },
      {
        contexts: { trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16), data: [1] } },
        start_timestamp: now(),
        timestamp: now(),
        tags: [1],
        measurements: [1],
      },
    ];
    for (const t of transactions)
      await survive('transaction', 'envelope', envelope({}, [[{ type: 'transaction' }, JSON.stringify({ type: 'transaction', ...t })]]));
    for (const span of [
      { items: [null, 1, { trace_id: 5 }, { trace_id: 'a'.repeat(32), attributes: [] }] },
      { items: 'x' },
      { trace_id: {} },
      { version: 2, items: [] },
    ])
      await survive('span', 'envelope', envelope({}, [[{ type: 'span' }, JSON.stringify(span)]]));
    const sessions: Array<[string, unknown]> = [
      ['session', { init: true, status: 'crashed', attrs: { release: 'hostile@1' }, errors: 1e308 }],
      ['session', { init: 'yes', status: 5, attrs: 'x' }],
      ['sessions', { aggregates: [{ started: 'x', exited: 1e308, crashed: Number.MAX_SAFE_INTEGER + 2, errored: -1 }], attrs: { release: 'hostile@1' } }],
      ['sessions', { aggregates: 'x', attrs: { release: 'hostile@1' } }],
      ['client_report', { discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 1e308 }, { quantity: 9007199254740991 }] }],
      ['client_report', { discarded_events: 'x' }],
    ];
    for (const [type, payload] of sessions) {
      const res = await survive(type, 'envelope', envelope({}, [[{ type }, JSON.stringify(payload)]]));
      expect(res.status, type).toBe(200);
    }
    // Still readable: release health after absurd counts.
    expect((await svc.api('/v1/projects')).status).toBe(200);
    for (const [header, payload] of [
      [{ type: 'replay_event' }, JSON.stringify({ replay_id: {}, segment_id: 'x' })],
      [{ type: 'replay_recording' }, '{"segment_id":0}\n\x78\x9c garbage'],
      [{ type: 'replay_recording' }, 'no header line'],
    ] as Array<[unknown, string]>)
      await survive(
        'replay',
        'envelope',
        envelope({ event_id: hex(14) }, [
          [{ type: 'replay_event' }, JSON.stringify({ replay_id: hex(14), segment_id: 0 })],
          [header, payload],
        ]),
      );
  });

  it("made-up item types, discard reasons and categories do not become metric labels; a level named like Object's members is a note", async () => {
    const made = Array.from({ length: 5 }, (_, i) => `made_up_type_${i}`);
    const { status, body } = await survive(
      'made-up types',
      'envelope',
      envelope({}, [
        ...made.map((type): [unknown, string] => [{ type }, '{}']),
        [{ type: 'client_report' }, JSON.stringify({ discarded_events: [{ reason: 'made_up_reason', category: 'made_up_category', quantity: 3 }] })],
        [{ type: 'event' }, JSON.stringify(goodEvent(0xc0ffee, { level: 'constructor' }))],
        [{ type: 'event' }, JSON.stringify(goodEvent(0xc0ffef, { level: '__proto__' }))],
      ]),
    );
    expect(status).toBe(200);
    expect(body.skipped ?? []).toEqual([]);
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    expect(metrics).not.toContain('made_up');
    const counted = (series: string) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
    expect(counted('faultline_sentry_envelope_items_total\\{type="other",outcome="ignored"\\}')).toBeGreaterThanOrEqual(5);
    expect(counted('faultline_sentry_client_discarded_events_total\\{reason="other",category="other"\\}')).toBeGreaterThanOrEqual(3);
    for (const id of [0xc0ffee, 0xc0ffef]) {
      const res = await svc.api(`/v1/events/${hex(id).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')}`);
      expect(res.status).toBe(200);
      const event = (await res.json()) as Json;
      expect(event.level).toBe('error');
      expect(JSON.stringify(event.processing_errors)).toContain('level');
    }
  });

  it('deeply nested JSON in an event, a transaction and the store body', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const event = `{"event_id":"${hex(20)}","timestamp":${now()},"extra":{"deep":${deep}},"contexts":{"x":${deepObject}},"tags":{"t":${deep}}}`;
    await survive('deep event', 'envelope', `{}\n{"type":"event"}\n${event}\n`);
    await survive('deep store', 'store', event);
    const transaction = `{"type":"transaction","contexts":{"trace":{"trace_id":"${'c'.repeat(32)}","span_id":"${'d'.repeat(16)}","data":${deepObject}}},"start_timestamp":${now()},"timestamp":${now()},"tags":${deepObject}}`;
    await survive('deep transaction', 'envelope', `{}\n{"type":"transaction"}\n${transaction}\n`);
    await survive('deep header', 'envelope', `${deepObject}\n`);
  });

  it('attachment headers: a content type with line breaks is not served back as a header; odd names are kept as text', async () => {
    const res = await survive(
      'attachment headers',
      'envelope',
      envelope({ event_id: hex(21) }, [
        [{ type: 'event' }, JSON.stringify(goodEvent(21))],
        [{ type: 'attachment', filename: 'evil.txt', content_type: 'text/plain\r\nSet-Cookie: a=b' }, 'x'],
        [{ type: 'attachment', filename: '../../../etc/passwd\u0000\r\n', content_type: 5 }, 'y'],
        [{ type: 'attachment', filename: 'z'.repeat(10_000), content_type: 'text/plain; charset=utf-8' }, 'z'],
      ]),
    );
    expect(res.status).toBe(200);
    const event = (await (await svc.api(`/v1/events/${hex(21)}`)).json()) as Json;
    expect(event.attachments).toHaveLength(3);
    for (const attachment of event.attachments as Json[]) {
      const download = await svc.api(`/v1/events/${hex(21)}/attachments/${attachment.id as string}`);
      expect(download.status, attachment.name as string).toBe(200);
      expect(download.headers.get('set-cookie')).toBeNull();
    }
    const byName = Object.fromEntries((event.attachments as Json[]).map((a) => [a.name, a]));
    expect(byName['evil.txt'].content_type).toBeNull();
    // Thousands of tiny attachments: the first 100 are kept, the rest skipped with the reason.
    const many = await survive(
      'many attachments',
      'envelope',
      envelope({ event_id: hex(22) }, [
        [{ type: 'event' }, JSON.stringify(goodEvent(22))],
        ...Array.from({ length: 2000 }, (_, i): [unknown, string] => [{ type: 'attachment', filename: `f${i}` }, String(i)]),
      ]),
    );
    expect(many.body.skipped).toHaveLength(1900);
    expect(many.body.skipped[0].reason).toBe('an envelope keeps at most 100 attachments');
    expect(((await (await svc.api(`/v1/events/${hex(22)}`)).json()) as Json).attachments).toHaveLength(100);
    expect(byName['z'.repeat(10_000)].content_type).toBe('text/plain; charset=utf-8');
  });
});

describe('hostile requests', () => {
  it('compression bombs in gzip, deflate and br are 413; corrupt or unknown encodings 400/415', async () => {
    const bomb = Buffer.alloc(24 * 1024 * 1024); // 24 MiB of zeros (the envelope cap is 10 MiB): a few KiB compressed
    for (const [encoding, body] of [
      ['gzip', gzipSync(bomb, { level: 9 })],
      ['deflate', deflateSync(bomb, { level: 9 })],
      ['deflate', deflateRawSync(bomb, { level: 9 })],
      ['br', brotliCompressSync(bomb)],
      ['gzip', Buffer.concat([gzipSync(bomb.subarray(0, 8 * 1024 * 1024)), gzipSync(bomb.subarray(0, 8 * 1024 * 1024))])], // members concatenated, 16 MiB
    ] as Array<[string, Buffer]>) {
      expect(body.length).toBeLessThan(200_000);
      await expectError(await post('envelope', body, { 'content-encoding': encoding }), 413, 'payload_too_large');
      await expectError(await post('store', body, { 'content-encoding': encoding }), 413, 'payload_too_large');
    }
    const good = envelope({}, [[{ type: 'event' }, JSON.stringify(goodEvent(30))]]);
    await expectError(await post('envelope', gzipSync(good).subarray(0, 20), { 'content-encoding': 'gzip' }), 400, 'invalid_json');
    await expectError(await post('envelope', Buffer.from('not brotli at all'), { 'content-encoding': 'br' }), 400, 'invalid_json');
    await expectError(await post('envelope', good, { 'content-encoding': 'zstd' }), 415, 'unsupported_media_type');
    await expectError(await post('envelope', gzipSync(gzipSync(good)), { 'content-encoding': 'gzip, gzip' }), 415, 'unsupported_media_type');
    // A replay recording that inflates past the envelope cap is skipped, not inflated.
    const recording = Buffer.concat([Buffer.from('{"segment_id":0}\n'), deflateSync(Buffer.from(`[${'0,'.repeat(20 * 1024 * 1024)}0]`))]);
    const replay = await survive(
      'replay bomb',
      'envelope',
      envelope({ event_id: hex(31) }, [
        [{ type: 'replay_event' }, JSON.stringify({ replay_id: hex(31), segment_id: 0, timestamp: now() })],
        [{ type: 'replay_recording', length: recording.length }, recording],
      ]),
    );
    expect(replay.status).toBe(200);
    expect(replay.body.skipped).toEqual([expect.objectContaining({ type: 'replay_recording' })]);
  });

  it('huge and odd headers, ids and keys', async () => {
    const good = envelope({}, [[{ type: 'event' }, JSON.stringify(goodEvent(40))]]);
    const huge = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/`, {
      method: 'POST',
      body: good,
      headers: { 'x-sentry-auth': `Sentry sentry_key=${publicKey}, ${'x'.repeat(100_000)}` },
    }).catch((error: Error) => error);
    if (!(huge instanceof Error)) expect(huge.status).toBe(431);
    for (const auth of ['Sentry', 'Sentry ,,,,', 'Sentry sentry_key=', `Sentry sentry_key=${'k'.repeat(5000)}`, 'Bearer x', 'Sentry sentry_key=a=b=c'])
      await expectError(await post('envelope', good, { 'x-sentry-auth': auth }), 401, 'unauthorized');
    for (const id of ['99999999999999999999', '-1', '0', 'abc', '1e3', '%00'])
      expect((await post('envelope', good, {}, id)).status, `ingest id ${id}`).toBeGreaterThanOrEqual(400);
    for (const id of ['99999999999999999999', '-1', '0', 'abc']) expect((await post('envelope', good, {}, id)).status).toBeLessThan(500);
    const query = await fetch(`${svc.baseUrl}/api/${ingestId}/envelope/?sentry_key=${publicKey}&sentry_key=other&sentry_key[]=x`, {
      method: 'POST',
      body: good,
    });
    expect(query.status).toBeLessThan(500);
    const origin = await post('envelope', good, { origin: 'null' });
    expect(origin.status).toBe(200);
    const preflight = await fetch(`${svc.baseUrl}/api/${'9'.repeat(40)}/envelope/`, { method: 'OPTIONS', headers: { origin: 'https://x.example' } });
    expect(preflight.status).toBeLessThan(500);
  });

  it('still takes a good envelope afterwards', async () => {
    const res = await post('envelope', envelope({ event_id: hex(50) }, [[{ type: 'event' }, JSON.stringify(goodEvent(50))]]));
    expect(res.status).toBe(200);
    expect(((await (await svc.api(`/v1/events/${hex(50)}`)).json()) as Json).exception.value).toBe('good 50');
  });
});
