// The scrubber on its own: the default rules, the options, custom rules and their validation,
// replay masking, and linear time on hostile strings.
import { describe, expect, it } from 'vitest';
import { authCredentials, creditCards, emails, ipAddresses, privateKeys, sensitivePairs } from '../../processors/scrubbing/detectors.js';
import { mask, scrubReplay } from '../../processors/scrubbing/replay.js';
import { Scrubber } from '../../processors/scrubbing/scrubber.js';
import { scrubEvent, scrubSpan } from '../../processors/scrubbing/signals.js';
import type { z } from 'zod';
import { dataScrubbingSchema, mergeScrubbing, SCRUBBING_DEFAULTS } from '../../src/records/data-scrubbing.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { ReplaySegment } from '../../src/records/replay.js';
import type { Span } from '../../src/records/span.js';
import { fullSnapshot } from '../support/replays.js';

const scrubber = (settings: z.input<typeof dataScrubbingSchema> = {}) =>
  new Scrubber(mergeScrubbing(SCRUBBING_DEFAULTS, dataScrubbingSchema.parse(settings)), 'p1');

function event(fields: Partial<ErrorEvent>): ErrorEvent {
  return {
    id: '0190a0a0-0000-7000-8000-000000000000',
    timestamp: '2026-01-01T00:00:00.000Z',
    received_at: '2026-01-01T00:00:00.000Z',
    environment: 'production',
    release: 'app@1',
    level: 'error',
    project_id: 'default',
    exception: { type: 'Error', value: 'boom' },
    processing_errors: [],
    ...fields,
  };
}

const CARD = '4111 1111 1111 1111';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';

describe('default rules', () => {
  it('filters values under sensitive keys everywhere, keeping the key, and lists each path with its rule', () => {
    const e = event({
      user: { id: 'u1', email: 'ann@example.com', username: 'ann' },
      tags: { session_id: 'abc', env: 'prod' },
      contexts: { extra: { db_password: 'hunter2', nested: { API_KEY: 'k', list: [{ token: 't' }] }, note: 'fine' } },
      breadcrumbs: [{ message: 'clicked', data: { csrf: 'x', Authorization: 'Basic abc' } }],
      request: {
        url: 'https://shop.example/cart?api_key=K1&item=3',
        headers: { Authorization: `Bearer ${JWT}`, Cookie: 'sid=1', 'Set-Cookie': 'a=b', 'X-Api-Key': 'K2', Accept: 'text/html' },
        query_string: 'password=hunter3&page=2',
        data: { credentials: { user: 'a', pass: 'b' }, private_key: 'pk', comment: 'ok' },
      },
    });
    scrubEvent(e, scrubber());
    expect(e.user).toEqual({ id: 'u1', email: 'ann@example.com', username: 'ann' });
    expect(e.tags).toEqual({ session_id: '[Filtered]', env: 'prod' });
    expect(e.contexts).toEqual({ extra: { db_password: '[Filtered]', nested: { API_KEY: '[Filtered]', list: [{ token: '[Filtered]' }] }, note: 'fine' } });
    expect(e.breadcrumbs?.[0].data).toEqual({ csrf: '[Filtered]', Authorization: '[Filtered]' });
    expect(e.request).toEqual({
      url: 'https://shop.example/cart?api_key=[Filtered]&item=3',
      headers: { Authorization: '[Filtered]', Cookie: '[Filtered]', 'Set-Cookie': '[Filtered]', 'X-Api-Key': '[Filtered]', Accept: 'text/html' },
      query_string: 'password=[Filtered]&page=2',
      data: { credentials: '[Filtered]', private_key: '[Filtered]', comment: 'ok' },
    });
    expect(e.scrubbed).toEqual(
      expect.arrayContaining([
        { path: 'tags.session_id', rule: '@password' },
        { path: 'contexts.extra.nested.list.0.token', rule: '@password' },
        { path: 'request.headers.Authorization', rule: '@password' },
        { path: 'request.url', rule: '@password' },
      ]),
    );
  });

  it('finds cards, credentials, private keys and AWS keys inside messages and exception values', () => {
    const e = event({
      message: `paid with ${CARD} (Authorization: Bearer ${JWT})`,
      exception: {
        type: 'Error',
        value: 'bad key -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY----- for AKIAIOSFODNN7EXAMPLE',
        cause: { type: 'Error', value: 'Basic dXNlcjpwYXNzd29yZA== refused, card 5500-0000-0000-0004' },
      },
      breadcrumbs: [{ message: `GET /api?token=${JWT}` }],
    });
    scrubEvent(e, scrubber());
    expect(e.message).toBe('paid with [Filtered] (Authorization: Bearer [Filtered])');
    expect(e.exception.value).toBe('bad key [Filtered] for [Filtered]');
    expect(e.exception.cause?.value).toBe('Basic [Filtered] refused, card [Filtered]');
    expect(e.breadcrumbs?.[0].message).toBe('GET /api?token=[Filtered]');
    expect(e.scrubbed).toEqual(
      expect.arrayContaining([
        { path: 'message', rule: '@creditcard' },
        { path: 'message', rule: '@bearer' },
        { path: 'exception.value', rule: '@privatekey' },
        { path: 'exception.value', rule: '@awskey' },
        { path: 'exception.cause.value', rule: '@creditcard' },
      ]),
    );
  });

  it('finds an AWS key id of every prefix alone in a string (the prefilter lets each through)', () => {
    for (const prefix of ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA']) {
      const e = event({ message: `role ${prefix}IOSFODNN7EXAMPLE assumed` });
      scrubEvent(e, scrubber());
      expect([prefix, e.message]).toEqual([prefix, 'role [Filtered] assumed']);
    }
  });

  it('leaves what only looks like a secret: non-Luhn numbers, digits inside words, "basic" prose, ids', () => {
    const e = event({ message: 'order 4111 1111 1111 1112, ref X4111111111111111, basic instructions, bearer of news', tags: { author: 'x' } });
    const before = structuredClone(e);
    scrubEvent(e, scrubber());
    expect(e.message).toBe(before.message);
    expect(e.scrubbed?.map((s) => s.path)).toEqual(['tags.author']); // `auth` matches, as Sentry's does
  });

  it('scrubs span, resource, event and link attributes and lists what it did in faultline.scrubbed', () => {
    const span: Span = {
      trace_id: 't',
      span_id: 's',
      parent_span_id: '',
      name: 'GET /login?password=p1',
      service_name: 'api',
      start_time_unix_nano: 1n,
      end_time_unix_nano: 2n,
      status: 'error',
      status_message: `card ${CARD}`,
      kind: 'server',
      attributes: { 'http.request.header.authorization': `Bearer ${JWT}`, 'url.full': 'https://x/?secret=s&a=1', 'http.route': '/login' },
      resource_attributes: { 'service.name': 'api', 'deployment.token': 'dt' },
      events: [{ name: 'exception', time_unix_nano: 1n, attributes: { 'exception.message': `AKIAIOSFODNN7EXAMPLE leaked` } }],
      links: [{ trace_id: 't2', span_id: 's2', attributes: { session: 'x' } }],
      project_id: 'default',
      received_at: '2026-01-01T00:00:00.000Z',
    };
    scrubSpan(span, scrubber());
    expect(span.name).toBe('GET /login?password=[Filtered]');
    expect(span.status_message).toBe('card [Filtered]');
    expect(span.attributes['http.request.header.authorization']).toBe('[Filtered]');
    expect(span.attributes['url.full']).toBe('https://x/?secret=[Filtered]&a=1');
    expect(span.resource_attributes['deployment.token']).toBe('[Filtered]');
    expect(span.events[0].attributes['exception.message']).toBe('[Filtered] leaked');
    expect(span.links[0].attributes.session).toBe('[Filtered]');
    expect(span.attributes['faultline.scrubbed']).toEqual(
      expect.arrayContaining(["@password attributes.'http.request.header.authorization'", "@awskey events.0.attributes.'exception.message'"]),
    );
  });
});

describe('options', () => {
  it('scrub_ip and scrub_email; extra sensitive fields; safe fields exempt from the defaults only', () => {
    const e = event({
      message: 'from 10.1.2.3 and 2001:db8::1, mail ann@example.com, at 12:30:45',
      user: { id: 'u1', email: 'ann@example.com', ip_address: '10.1.2.3' },
      contexts: { extra: { iban_number: 'x', auth_mode: 'oauth', session: 's' } },
    });
    scrubEvent(e, scrubber({ scrub_ip: true, scrub_email: true, sensitive_fields: ['IBAN'], safe_fields: ['auth_mode'] }));
    expect(e.message).toBe('from [Filtered] and [Filtered], mail [Filtered], at 12:30:45');
    expect(e.user).toEqual({ id: 'u1', email: '[Filtered]', ip_address: '[Filtered]' });
    expect(e.contexts).toEqual({ extra: { iban_number: '[Filtered]', auth_mode: 'oauth', session: '[Filtered]' } });
  });

  it('defaults: false turns the default rules off', () => {
    const e = event({ tags: { token: 't' }, message: CARD });
    scrubEvent(e, scrubber({ defaults: false }));
    expect(e.tags).toEqual({ token: 't' });
    expect(e.message).toBe(CARD);
    expect(e.scrubbed).toBeUndefined();
  });

  it('a project overrides the flags and adds to the lists', () => {
    const merged = mergeScrubbing({ ...SCRUBBING_DEFAULTS, sensitive_fields: ['a'], scrub_ip: true }, { sensitive_fields: ['b'], scrub_ip: false });
    expect(merged).toMatchObject({ sensitive_fields: ['a', 'b'], scrub_ip: false, defaults: true, mask_all_inputs: true });
  });
});

describe('custom rules', () => {
  it('selectors, named kinds, RE2 patterns and the four methods', () => {
    const e = event({
      message: 'customer cust-123456 paid, uuid 123e4567-e89b-12d3-a456-426614174000, iban DE89370400440532013000',
      request: { headers: { 'x-customer-id': 'C-77', 'x-trace': 'keep' } },
      contexts: { extra: { note: 'call +1 555 0100', drop_me: 'x' }, app: { build: 'b1' } },
    });
    scrubEvent(
      e,
      scrubber({
        rules: [
          { id: 'customer', selector: '$string', pattern: 'cust-[0-9]{6}', method: 'mask' },
          { selector: 'request.headers.x-customer-id', method: 'hash' },
          { selector: '$string', pattern: '@uuid', method: 'replace', replacement: '<uuid>' },
          { selector: '$string', pattern: '@iban', method: 'remove' },
          { selector: 'extra.drop_me', method: 'remove' },
          { selector: 'extra.*', pattern: '\\+[0-9 ]+', method: 'replace' },
        ],
      }),
    );
    expect(e.message).toBe('customer *********** paid, uuid <uuid>, iban ');
    const hash = e.request?.headers?.['x-customer-id'] ?? '';
    expect(hash).toMatch(/^[0-9a-f]{32}$/);
    expect(e.request?.headers?.['x-trace']).toBe('keep');
    expect(e.contexts).toEqual({ extra: { note: 'call [Filtered]' }, app: { build: 'b1' } });
    expect(e.scrubbed).toEqual(
      expect.arrayContaining([
        { path: 'message', rule: 'customer' },
        { path: 'request.headers.x-customer-id', rule: 'rules[1]' },
        { path: 'contexts.extra.drop_me', rule: 'rules[4]' },
      ]),
    );
  });

  it('rejects bad rules with the path of each problem', () => {
    const result = dataScrubbingSchema.safeParse({
      rules: [
        { selector: 'extra..x', method: 'mask' },
        { selector: '$string', pattern: '(a', method: 'mask' },
        { selector: '$string', pattern: '(?=lookahead)x' },
        { selector: '$string', pattern: '@nope' },
        { selector: '$string', pattern: 'a*' },
        { selector: '$str' },
        { selector: 'x', method: 'mask', replacement: 'y' },
        { selector: 'x', method: 'explode' },
      ],
      mask_all_text: 'yes',
    });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining([
        'rules.0.selector',
        'rules.1.pattern',
        'rules.2.pattern',
        'rules.3.pattern',
        'rules.4.pattern',
        'rules.5.selector',
        'rules.6.replacement',
        'rules.7.method',
        'mask_all_text',
      ]),
    );
  });
});

describe('replays', () => {
  const segment = (events: unknown[]): ReplaySegment => ({
    replay_id: 'rpl_1',
    segment_id: 0,
    project_id: 'default',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    received_at: '2026-01-01T00:00:01.000Z',
    event_count: events.length,
    raw_bytes: 0,
    has_full_snapshot: true,
    urls: ['https://shop.example/?token=abc'],
    error_ids: [],
    trace_ids: [],
    processing_errors: [],
    events_json: JSON.stringify(events),
  });
  const snapshot = fullSnapshot(1, [
    { type: 3, id: 3, textContent: `Hello Ann, card ${CARD}` },
    { type: 2, id: 4, tagName: 'input', attributes: { type: 'text', value: 'typed-secret' }, childNodes: [] },
    { type: 2, id: 5, tagName: 'textarea', attributes: {}, childNodes: [{ type: 3, id: 6, textContent: 'my notes' }] },
    { type: 2, id: 7, tagName: 'style', attributes: {}, childNodes: [{ type: 3, id: 8, textContent: 'a{color:red}' }] },
  ]);
  const input = { type: 3, timestamp: 2, data: { source: 5, id: 4, text: 'more-typed', isChecked: false } };
  const mutation = {
    type: 3,
    timestamp: 3,
    data: { source: 0, adds: [], removes: [], texts: [{ id: 3, value: 'Bye Ann' }], attributes: [{ id: 4, attributes: { value: 'v2' } }] },
  };

  it('masks inputs by default, text with mask_all_text, and scrubs every string of the events', () => {
    const s = segment([snapshot, input, mutation]);
    scrubReplay(s, scrubber());
    const out = JSON.stringify(JSON.parse(s.events_json));
    expect(out).not.toContain('typed-secret');
    expect(out).not.toContain('more-typed');
    expect(out).not.toContain('my notes');
    expect(out).not.toContain(CARD);
    expect(out).toContain('Hello Ann, card [Filtered]');
    expect(out).toContain('Bye Ann');
    expect(out).toContain('a{color:red}');
    expect(s.urls).toEqual(['https://shop.example/?token=[Filtered]']);
    expect(s.raw_bytes).toBe(Buffer.byteLength(s.events_json));
    expect(s.processing_errors.map((n) => n.message)).toEqual(expect.arrayContaining(['scrubbed by mask_all_inputs', 'scrubbed by @creditcard']));

    const all = segment([snapshot, input, mutation]);
    scrubReplay(all, scrubber({ mask_all_text: true, mask_all_inputs: false }));
    const text = all.events_json;
    expect(text).toContain(`"textContent":"${mask(`Hello Ann, card ${CARD}`)}"`);
    expect(text).not.toContain('Bye Ann');
    expect(text).toContain('typed-secret'); // inputs unmasked on purpose
    expect(text).toContain('a{color:red}');
  });
});

describe('linear time on hostile strings', () => {
  const timed = (body: () => void) => {
    const start = process.hrtime.bigint();
    body();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };

  it('each detector and a user pattern take time proportional to the input', () => {
    const hostile = [
      '1 '.repeat(100_000),
      '4'.repeat(200_000),
      '@'.repeat(100_000) + 'a'.repeat(100_000),
      'a@'.repeat(100_000),
      '1.'.repeat(100_000),
      'a:'.repeat(100_000),
      '-----BEGIN '.repeat(20_000),
      'bearer '.repeat(30_000),
      '&a='.repeat(60_000),
      '?'.repeat(100_000) + 'x'.repeat(100_000),
    ];
    const s = scrubber({ scrub_ip: true, scrub_email: true, rules: [{ selector: '$string', pattern: '(a+)+$', method: 'mask' }] });
    for (const text of hostile) {
      const small = text.slice(0, text.length / 10);
      const t1 = timed(() => s.text(small));
      const t10 = timed(() => s.text(text));
      // Ten times the input: well under a hundred times the time (quadratic would be ~100x).
      expect(t10, `${JSON.stringify(text.slice(0, 12))}…`).toBeLessThan(Math.max(30 * t1, 250));
    }
    for (const finder of [creditCards, authCredentials, privateKeys, emails, ipAddresses]) expect(finder('').length).toBe(0);
    expect(sensitivePairs('a=1', () => true)).toEqual([[2, 3]]);
  });
});
