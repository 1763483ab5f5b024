// End to end: health, readiness, metrics, the OpenAPI description, the HTTP host's error handling,
// request ids and per-key rate limits.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { expectError, type ErrorBody } from '../support/http.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

/** The value of a Prometheus sample whose name and labels match, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

async function metrics(): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

describe('health and readiness', () => {
  it('/healthz answers 200 without a key', async () => {
    const res = await fetch(`${svc.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('/readyz answers 200 without a key', async () => {
    const res = await fetch(`${svc.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('ready');
  });
});

describe('/metrics', () => {
  it('is Prometheus text with the receiver and latency metrics', async () => {
    const before = sample(await metrics(), 'faultline_receiver_accepted_items_total', { signal: 'events' }) ?? 0;
    const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) });
    expect(res.status).toBe(202);
    const text = await metrics();
    expect(text).toContain('# TYPE faultline_receiver_accepted_items_total counter');
    expect(sample(text, 'faultline_receiver_accepted_items_total', { receiver: 'http_api', signal: 'events' })).toBe(before + 1);
    expect(text).toContain('# TYPE faultline_http_request_duration_seconds histogram');
    expect(sample(text, 'faultline_http_request_duration_seconds_count', { method: 'POST', status: '202' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'faultline_http_request_duration_seconds_bucket', { le: '+Inf' })).toBeGreaterThanOrEqual(1);
  });

  it('counts a rejected event in faultline_processor_rejected_items_total', async () => {
    const labels = { processor: 'validation', signal: 'events' };
    const before = sample(await metrics(), 'faultline_processor_rejected_items_total', labels) ?? 0;
    const bad = fullEvent({ timestamp: 'not a time' });
    const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(bad) });
    await expectError(res, 400, 'validation_failed');
    const text = await metrics();
    expect(text).toContain('faultline_processor_rejected_items_total');
    expect(sample(text, 'faultline_processor_rejected_items_total', labels)).toBe(before + 1);
  });

  it('counts refused items by reason in faultline_receiver_refused_items_total', async () => {
    const labels = { receiver: 'http_api', signal: 'events', reason: 'too_large' };
    const before = sample(await metrics(), 'faultline_receiver_refused_items_total', labels) ?? 0;
    const body = Buffer.from(JSON.stringify(fullEvent({ message: 'x'.repeat(1024 * 1024 + 1) })));
    await expectError(await svc.api('/v1/events', { method: 'POST', body }), 413, 'payload_too_large');
    expect(sample(await metrics(), 'faultline_receiver_refused_items_total', labels)).toBe(before + 1);
  });
});

describe('/v1/openapi.json', () => {
  interface OpenApi {
    openapi: string;
    info: { title: string; version: string };
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Record<string, any> }> }; responses: object }>>;
  }
  let doc: OpenApi;

  beforeAll(async () => {
    const res = await fetch(`${svc.baseUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await res.json()) as OpenApi;
  });

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(typeof doc.info.version).toBe('string');
  });

  it('lists every route the service serves, with its methods', () => {
    const expected: Record<string, string[]> = {
      '/v1/events': ['get', 'post'],
      '/v1/events/{id}': ['get'],
      '/v1/traces': ['get', 'post'],
      '/v1/traces/{id}': ['get'],
      '/v1/releases': ['get'],
      '/v1/releases/{version}': ['get'],
      '/v1/replays': ['get', 'post'],
      '/v1/issues': ['get', 'patch'],
      '/v1/issues/{id}': ['get', 'patch'],
      '/v1/issues/{id}/merge': ['post'],
      '/v1/issues/{id}/fingerprints': ['get'],
      '/v1/issues/{id}/unmerge': ['post'],
      '/v1/issues/{id}/comments': ['post'],
      '/v1/issues/{id}/activity': ['get'],
      '/v1/projects': ['get'],
      '/issues/{id}': ['get'],
      '/healthz': ['get'],
      '/readyz': ['get'],
      '/metrics': ['get'],
      '/v1/openapi.json': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(doc.paths[path], path).toBeDefined();
      expect(Object.keys(doc.paths[path]).sort(), path).toEqual(methods);
      for (const method of methods) expect(Object.keys(doc.paths[path][method].responses).length, `${method} ${path}`).toBeGreaterThan(0);
    }
  });

  it('describes only routes that answer (no 404 for a listed route)', async () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!('get' in operations)) continue;
      const concrete = path.replace(/\{[^}]+\}/g, '0123456789abcdef');
      const res = await svc.api(concrete);
      const body = await res.text();
      if (res.status === 404) expect(JSON.parse(body).error.message, `${concrete}: ${body}`).not.toMatch(/no route/);
    }
  });

  it('has a request body schema for POST /v1/events with timestamp required', () => {
    const body = doc.paths['/v1/events'].post.requestBody;
    expect(body).toBeDefined();
    const schema = body!.content['application/json'].schema;
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(expect.arrayContaining(['timestamp', 'environment', 'release', 'exception']));
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['id', 'timestamp', 'exception', 'user', 'tags', 'trace_id']));
  });
});

describe('the HTTP host', () => {
  it('an unknown path: 404 with the error body', async () => {
    await expectError(await svc.api('/v1/nothing-here'), 404, 'not_found');
    await expectError(await fetch(`${svc.baseUrl}/nope`), 404, 'not_found');
  });

  it('a wrong method on /v1/events: 405 with Allow', async () => {
    const res = await svc.api('/v1/events', { method: 'DELETE' });
    const allow = res.headers.get('allow');
    await expectError(res, 405, 'method_not_allowed');
    expect(
      allow
        ?.split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('a wrong method on /v1/issues/{id}: 405 with Allow', async () => {
    const res = await svc.api('/v1/issues/0123456789abcdef', { method: 'PUT', body: '{}' });
    const allow = res.headers.get('allow');
    await expectError(res, 405, 'method_not_allowed');
    expect(
      allow
        ?.split(',')
        .map((m) => m.trim())
        .sort(),
    ).toEqual(['GET', 'HEAD', 'PATCH']);
  });

  it('a malformed percent-encoding in the path: a 4xx with the error body and the request id', async () => {
    for (const path of ['/v1/events/%E0%A4%A', '/v1/issues/%ZZ', '/nope%E0']) {
      const res = await svc.api(path, { headers: { 'x-request-id': 'abc-123' } });
      const text = await res.text();
      expect([400, 404], `${path}: ${res.status} ${text}`).toContain(res.status);
      const body = JSON.parse(text) as ErrorBody;
      expect(body.error.code).toBe(res.status === 400 ? 'invalid_parameter' : 'not_found');
      expect(body.error.request_id).toBe('abc-123');
      expect(res.headers.get('x-request-id')).toBe('abc-123');
    }
  });

  it('answers HEAD where it answers GET (RFC 9110: general-purpose servers support HEAD)', async () => {
    const health = await fetch(`${svc.baseUrl}/healthz`, { method: 'HEAD' });
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('');
    const events = await svc.api('/v1/events?project_id=default&limit=1', { method: 'HEAD' });
    expect(events.status).toBe(200);
    expect(events.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('echoes an incoming x-request-id', async () => {
    const ok = await fetch(`${svc.baseUrl}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('abc-123');
    const listed = await svc.api('/v1/events?project_id=default&limit=1', { headers: { 'x-request-id': 'abc-123' } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('x-request-id')).toBe('abc-123');
    const failed = await svc.api('/v1/events?project_id=default', { key: null, headers: { 'x-request-id': 'abc-123' } });
    const body = await expectError(failed, 401, 'unauthorized');
    expect(body.error.request_id).toBe('abc-123');
  });

  it('makes up a request id when none (or an unusable one) comes in, a new one per request', async () => {
    const a = (await fetch(`${svc.baseUrl}/healthz`)).headers.get('x-request-id');
    const b = (await fetch(`${svc.baseUrl}/healthz`)).headers.get('x-request-id');
    expect(a).toBeTruthy();
    expect(b).toBeTruthy();
    expect(a).not.toBe(b);
    const weird = (await fetch(`${svc.baseUrl}/healthz`, { headers: { 'x-request-id': 'a b <script>' } })).headers.get('x-request-id');
    expect(weird).toBeTruthy();
    expect(weird).not.toContain('<');
  });
});

describe('rate limiting', () => {
  let limited: TestService;

  beforeAll(async () => {
    const config = parse(readFileSync(join(import.meta.dirname, '../../config/default.yaml'), 'utf8')) as {
      service: Record<string, unknown>;
    };
    config.service.limits = { rate_limit: { requests_per_second: 1, burst: 2 } };
    limited = await startService({ env: {}, yaml: stringify(config) });
  });

  afterAll(async () => {
    await limited?.stop();
  });

  it('the 3rd quick request of a key gets 429 rate_limited with Retry-After', async () => {
    const first = await limited.api('/v1/events?project_id=default');
    const second = await limited.api('/v1/events?project_id=default');
    const third = await limited.api('/v1/events?project_id=default');
    expect(first.status, await first.text()).toBe(200);
    expect(second.status, await second.text()).toBe(200);
    const retryAfter = third.headers.get('retry-after');
    await expectError(third, 429, 'rate_limited');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(2);

    // The limit is per key: the test key still has its burst; the unauthenticated routes are not limited.
    expect((await limited.api('/v1/events?project_id=default', { key: limited.testKey })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await fetch(`${limited.baseUrl}/healthz`)).status).toBe(200);
    // Ingest is limited too.
    const post = await limited.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) });
    await expectError(post, 429, 'rate_limited');
  });
});
