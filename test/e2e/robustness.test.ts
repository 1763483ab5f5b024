// Hostile and odd input never gets a 5xx: every answer is a 2xx or a documented 4xx with the
// error body. A seeded generator mutates a valid event field by field, so failures reproduce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -0,
  '',
  ' ',
  'x'.repeat(70_000),
  '\u0000\u0001\ud800',
  '💥'.repeat(100),
  [],
  [null],
  {},
  { __proto__: 'x' },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}'),
  Array.from({ length: 2000 }, (_, i) => ({ filename: `f${i}.js`, function: `fn${i}`, lineno: i })),
  JSON.parse('['.repeat(500) + ']'.repeat(500)),
];

const PATHS = [
  [],
  ['id'],
  ['timestamp'],
  ['environment'],
  ['release'],
  ['level'],
  ['message'],
  ['exception'],
  ['exception', 'type'],
  ['exception', 'value'],
  ['exception', 'stacktrace'],
  ['exception', 'stacktrace', 0],
  ['exception', 'stacktrace', 0, 'lineno'],
  ['exception', 'stacktrace', 0, 'in_app'],
  ['exception', 'stacktrace', 0, 'pre_context'],
  ['user'],
  ['user', 'id'],
  ['user', 'email'],
  ['tags'],
  ['tags', 'route'],
  ['tags', '"quoted\\key'],
  ['trace_id'],
  ['replay_id'],
  ['breadcrumbs'],
  ['breadcrumbs', 0, 'data'],
  ['contexts'],
  ['request', 'headers'],
  ['fingerprint'],
  ['sdk'],
];

function setPath(target: Record<string, unknown>, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  let node: Record<string | number, unknown> = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]] = value;
  return target;
}

describe('hostile input', () => {
  it('answers 300 mutated events with 202 or 400, never a 5xx, and the service keeps working', async () => {
    const next = random(20261122);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const path = PATHS[Math.floor(next() * PATHS.length)];
      const value = WEIRD_VALUES[Math.floor(next() * WEIRD_VALUES.length)];
      const body = setPath(fullEvent(), path, value);
      const response = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(body) });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const text = await response.text();
      expect([202, 400, 413], `${JSON.stringify(path)} = ${JSON.stringify(value)?.slice(0, 80)} -> ${response.status} ${text.slice(0, 300)}`).toContain(
        response.status,
      );
      if (response.status !== 202) expect(JSON.parse(text).error.request_id).toBe(response.headers.get('x-request-id'));
    }
    expect(statuses.get(202)).toBeGreaterThan(0);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const list = await svc.api('/v1/events?project_id=default&limit=1000');
    expect(list.status).toBe(200);
    const body = (await list.json()) as { data: Array<{ id: string }> };
    expect(body.data.length).toBe(statuses.get(202));
    for (const event of body.data.slice(0, 20)) expect((await svc.api(`/v1/events/${event.id}`)).status).toBe(200);
  });

  it('answers 300 mutated span batches (/v1/traces and OTLP/JSON) with 2xx or 4xx, never a 5xx', async () => {
    const next = random(7);
    const spanPaths: Array<Array<string | number>> = [
      [],
      ['trace_id'],
      ['span_id'],
      ['parent_span_id'],
      ['name'],
      ['start_time'],
      ['end_time'],
      ['status'],
      ['kind'],
      ['attributes'],
      ['attributes', 'k'],
      ['resource_attributes'],
      ['events'],
      ['events', 0],
      ['events', 0, 'time'],
      ['events', 0, 'attributes'],
      ['links'],
      ['links', 0, 'trace_id'],
      ['scope'],
      ['service_name'],
    ];
    const values: unknown[] = [...WEIRD_VALUES, '1700000000000', -5, 2 ** 70, 'ERROR', 'x'.repeat(100)];
    const baseSpan = () => ({
      trace_id: 'ab'.repeat(16),
      span_id: 'cd'.repeat(8),
      name: 'op',
      start_time: Date.now() - 1000,
      end_time: Date.now(),
      attributes: { a: 1 },
      events: [{ name: 'exception', time: Date.now(), attributes: { 'exception.type': 'E', 'exception.stacktrace': 'E: x\n    at f (a.js:1:2)' } }],
      links: [{ trace_id: 'ef'.repeat(16), span_id: '01'.repeat(8) }],
    });
    for (let i = 0; i < 150; i++) {
      const span = setPath(baseSpan(), spanPaths[Math.floor(next() * spanPaths.length)], values[Math.floor(next() * values.length)]);
      const response = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span, baseSpan()] }) });
      const text = await response.text();
      expect([202, 400, 413], `/v1/traces -> ${response.status} ${text.slice(0, 200)}`).toContain(response.status);
    }
    const otlpValues: unknown[] = [
      ...values,
      { stringValue: 'x' },
      { intValue: '9223372036854775807' },
      { arrayValue: { values: [{ kvlistValue: { values: [] } }] } },
    ];
    const otlpPaths: Array<Array<string | number>> = [
      [],
      ['resourceSpans'],
      ['resourceSpans', 0],
      ['resourceSpans', 0, 'resource'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'traceId'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'startTimeUnixNano'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'attributes', 0, 'value'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'kind'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'status'],
      ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0, 'events'],
    ];
    const otlpBody = () => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
          scopeSpans: [
            {
              scope: { name: 's' },
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 'op',
                  kind: 2,
                  startTimeUnixNano: `${Date.now() - 1000}000000`,
                  endTimeUnixNano: `${Date.now()}000000`,
                  attributes: [{ key: 'a', value: { intValue: '1' } }],
                  status: { code: 2, message: 'bad' },
                },
              ],
            },
          ],
        },
      ],
    });
    for (let i = 0; i < 150; i++) {
      const body = setPath(otlpBody(), otlpPaths[Math.floor(next() * otlpPaths.length)], otlpValues[Math.floor(next() * otlpValues.length)]);
      const response = await fetch(`${svc.otlpUrl}/v1/traces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect([200, 400, 413], `OTLP -> ${response.status} ${text.slice(0, 200)}`).toContain(response.status);
    }
  });

  it('answers odd query parameters and paths with 4xx', async () => {
    const cases = [
      '/v1/events?limit=-1',
      '/v1/events?limit=1e3',
      '/v1/events?start=yesterday',
      '/v1/events?end=2026-13-45T99:99:99Z',
      '/v1/events?level=loud',
      '/v1/events?cursor=%00%01',
      '/v1/events?query=' + encodeURIComponent('tags.:x "unclosed'),
      '/v1/events/%E0%A4%A',
      '/v1/events/' + 'a'.repeat(5000),
      '/v1/issues?status=maybe',
      '/v1/issues/%2e%2e%2f',
      '/v1/projects?limit=0',
    ];
    for (const path of cases) {
      const response = await svc.api(path);
      expect(response.status, `${path} -> ${response.status}`).toBeGreaterThanOrEqual(200);
      expect(response.status, `${path} -> ${response.status}`).toBeLessThan(500);
    }
  });
});
