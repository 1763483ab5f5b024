// End to end: bearer keys, organization and project scope, live and test datasets.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { expectError, type Ack } from '../support/http.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;
/** A project key (live) for `shop`. */
let shopKey: string;
/** An event and its issue in the default project, posted with the live organization key. */
let defaultEvent: { id: string; issueId: string };

beforeAll(async () => {
  svc = await startService();
  const catalog = catalogOf(svc.service.host);
  await catalog.createProject({ id: 'shop', name: 'Shop', platform: 'node' });
  shopKey = (await catalog.createKey({ dataset: 'live', projectId: 'shop', name: 'shop live' })).secret;
  const ack = await ingest(fullEvent({ id: randomUUID(), environment: 'auth-default' }));
  defaultEvent = { id: ack.id, issueId: issueOf(ack) };
});

afterAll(async () => {
  await svc?.stop();
});

async function expectUnauthorized(res: Response): Promise<void> {
  const wwwAuthenticate = res.headers.get('www-authenticate');
  await expectError(res, 401, 'unauthorized');
  expect(wwwAuthenticate).toMatch(/^Bearer\b/);
}

async function ingest(event: Record<string, unknown>, path = '/v1/events', key?: string, headers: Record<string, string> = {}): Promise<Ack> {
  const res = await svc.api(path, { method: 'POST', body: JSON.stringify(event), key, headers });
  const text = await res.text();
  expect(res.status, text).toBe(202);
  return JSON.parse(text) as Ack;
}

function issueOf(ack: Ack): string {
  const match = /^http:\/\/faultline\.test\/issues\/([^/]+)$/.exec(ack.permalink);
  expect(match, ack.permalink).not.toBeNull();
  return match![1];
}

async function getJson(path: string, key?: string): Promise<Record<string, any>> {
  const res = await svc.api(path, { key });
  const text = await res.text();
  expect(res.status, `${path}: ${text}`).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}

async function listIds(path: string, key?: string): Promise<string[]> {
  const page = await getJson(path, key);
  return (page.data as Array<{ id: string }>).map((e) => e.id);
}

/** The three routes of the auth matrix, each with a request that succeeds with a good key. */
const routes = () => [
  { name: 'GET /v1/events', path: '/v1/events?project_id=default', init: {} as RequestInit, ok: 200 },
  { name: 'POST /v1/events', path: '/v1/events', init: { method: 'POST', body: JSON.stringify(fullEvent()) } as RequestInit, ok: 202 },
  { name: 'GET /v1/issues/{id}', path: `/v1/issues/${defaultEvent.issueId}`, init: {} as RequestInit, ok: 200 },
];

describe('credentials', () => {
  it('a good key passes on every route of the matrix (the baseline)', async () => {
    for (const route of routes()) {
      const res = await svc.api(route.path, route.init);
      expect(res.status, `${route.name}: ${await res.text()}`).toBe(route.ok);
    }
  });

  it('no Authorization header: 401 unauthorized with WWW-Authenticate: Bearer', async () => {
    for (const route of routes()) await expectUnauthorized(await svc.api(route.path, { ...route.init, key: null }));
  });

  it.each(['Basic x', 'Bearer', 'Bearer ', 'Token fl_live_abc', 'bearer'])('malformed header %j: 401', async (header) => {
    for (const route of routes()) {
      const headers = { authorization: header };
      await expectUnauthorized(await svc.api(route.path, { ...route.init, key: null, headers }));
    }
  });

  it('the right key in a Basic header is still refused', async () => {
    const headers = { authorization: `Basic ${svc.liveKey}` };
    await expectUnauthorized(await svc.api('/v1/events?project_id=default', { key: null, headers }));
  });

  it('an unknown key: 401', async () => {
    const unknownLive = `fl_live_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'a').slice(0, 32)}`;
    expect(unknownLive).toMatch(/^fl_live_[A-Za-z0-9]{32}$/);
    const unknownTest = `fl_test_${unknownLive.slice(8)}`;
    for (const key of [unknownLive, unknownTest, 'sk_live_nothing', svc.liveKey.slice(0, -1)]) {
      for (const route of routes()) await expectUnauthorized(await svc.api(route.path, { ...route.init, key }));
    }
  });

  it('a revoked key: 401 right after revocation', async () => {
    const catalog = catalogOf(svc.service.host);
    const created = await catalog.createKey({ dataset: 'live', name: 'to revoke' });
    for (const route of routes()) {
      const res = await svc.api(route.path, { ...route.init, key: created.secret });
      expect(res.status, `${route.name}: ${await res.text()}`).toBe(route.ok);
    }
    await catalog.revokeKey(created.key.id);
    for (const route of routes()) await expectUnauthorized(await svc.api(route.path, { ...route.init, key: created.secret }));
  });

  it('a revoked project key: 401 right after revocation', async () => {
    const catalog = catalogOf(svc.service.host);
    const created = await catalog.createKey({ dataset: 'test', projectId: 'shop' });
    expect((await svc.api('/v1/events', { key: created.secret })).status).toBe(200);
    await catalog.revokeKey(created.key.id);
    await expectUnauthorized(await svc.api('/v1/events', { key: created.secret }));
  });
});

describe('organization keys', () => {
  it('reach every project, named with ?project_id= or x-faultline-project', async () => {
    const byQuery = await ingest(fullEvent({ id: randomUUID(), environment: 'org-shop' }), '/v1/events?project_id=shop');
    const byHeader = await ingest(fullEvent({ id: randomUUID(), environment: 'org-shop' }), '/v1/events', undefined, {
      'x-faultline-project': 'shop',
    });
    for (const ack of [byQuery, byHeader]) {
      const event = await getJson(`/v1/events/${ack.id}`);
      expect(event.project_id).toBe('shop');
      expect(event.issue_id).toBe(issueOf(ack));
      expect((await getJson(`/v1/events/${ack.id}?project_id=shop`)).id).toBe(ack.id);
    }
    const listed = await listIds('/v1/events?project_id=shop&environment=org-shop');
    expect(listed.sort()).toEqual([byQuery.id, byHeader.id].sort());
    // Not in the default project.
    expect(await listIds('/v1/events?project_id=default&environment=org-shop')).toEqual([]);
    await expectError(await svc.api(`/v1/events/${byQuery.id}?project_id=default`), 404, 'not_found');
    // The issue is reachable too.
    expect((await getJson(`/v1/issues/${issueOf(byQuery)}`)).project_id).toBe('shop');
  });

  it('ingest into the default project when no project is named; list routes need one named', async () => {
    const ack = await ingest(fullEvent({ id: randomUUID(), environment: 'org-default' }));
    expect((await getJson(`/v1/events/${ack.id}`)).project_id).toBe('default');
    expect(await listIds('/v1/events?project_id=default&environment=org-default')).toEqual([ack.id]);
    // The spec makes project_id required on GET /events; with an organization key it is.
    for (const path of ['/v1/events?environment=org-default', '/v1/issues']) {
      const body = await expectError(await svc.api(path), 400, 'invalid_parameter');
      expect(
        body.error.details.map((d) => d.path),
        path,
      ).toEqual(['project_id']);
    }
  });

  it('naming a project that does not exist: 404', async () => {
    await expectError(await svc.api('/v1/events?project_id=nope', { method: 'POST', body: JSON.stringify(fullEvent()) }), 404, 'not_found');
    await expectError(
      await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()), headers: { 'x-faultline-project': 'nope' } }),
      404,
      'not_found',
    );
    await expectError(await svc.api('/v1/events?project_id=nope'), 404, 'not_found');
    await expectError(await svc.api(`/v1/events/${defaultEvent.id}?project_id=nope`), 404, 'not_found');
    await expectError(await svc.api('/v1/issues?project_id=nope'), 404, 'not_found');
  });
});

describe('project keys', () => {
  it('post and read their project without naming it', async () => {
    const ack = await ingest(fullEvent({ id: randomUUID(), environment: 'shop-key' }), '/v1/events', shopKey);
    const event = await getJson(`/v1/events/${ack.id}`, shopKey);
    expect(event.project_id).toBe('shop');
    expect(await listIds('/v1/events?environment=shop-key', shopKey)).toEqual([ack.id]);
    expect(await listIds('/v1/events?project_id=shop&environment=shop-key', shopKey)).toEqual([ack.id]);
    expect((await getJson(`/v1/issues/${issueOf(ack)}`, shopKey)).id).toBe(issueOf(ack));
    // The organization key sees it in shop.
    expect(await listIds('/v1/events?project_id=shop&environment=shop-key')).toEqual([ack.id]);
  });

  it('naming another project: 403 forbidden', async () => {
    await expectError(await svc.api('/v1/events?project_id=default', { method: 'POST', body: JSON.stringify(fullEvent()), key: shopKey }), 403, 'forbidden');
    await expectError(
      await svc.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify(fullEvent()),
        key: shopKey,
        headers: { 'x-faultline-project': 'default' },
      }),
      403,
      'forbidden',
    );
    await expectError(await svc.api('/v1/events?project_id=default', { key: shopKey }), 403, 'forbidden');
    await expectError(await svc.api('/v1/issues?project_id=default', { key: shopKey }), 403, 'forbidden');
  });

  it('an event or issue of another project: 404, never leaked', async () => {
    const event = await expectError(await svc.api(`/v1/events/${defaultEvent.id}`, { key: shopKey }), 404, 'not_found');
    const missing = await expectError(await svc.api(`/v1/events/${randomUUID()}`, { key: shopKey }), 404, 'not_found');
    // The answer for an existing id of another project is the answer for an id that does not exist.
    expect(event.error.message.replace(defaultEvent.id, 'ID')).toBe(missing.error.message.replace(/[0-9a-f-]{36}/, 'ID'));
    await expectError(await svc.api(`/v1/issues/${defaultEvent.issueId}`, { key: shopKey }), 404, 'not_found');
    await expectError(
      await svc.api(`/v1/issues/${defaultEvent.issueId}`, { method: 'PATCH', body: JSON.stringify({ status: 'resolved' }), key: shopKey }),
      404,
      'not_found',
    );
    // Nothing changed.
    expect((await getJson(`/v1/issues/${defaultEvent.issueId}`)).status).toBe('unresolved');
  });
});

describe('live and test datasets', () => {
  it('an event posted with the test key is invisible to the live key, and vice versa', async () => {
    const sameError = { environment: 'datasets', exception: { type: 'DatasetError', value: 'the same error in both datasets' } };
    const test = await ingest(fullEvent({ id: randomUUID(), ...sameError }), '/v1/events', svc.testKey);
    const live = await ingest(fullEvent({ id: randomUUID(), ...sameError }), '/v1/events', svc.liveKey);

    // Each key reads its own.
    expect((await getJson(`/v1/events/${test.id}`, svc.testKey)).id).toBe(test.id);
    expect((await getJson(`/v1/events/${live.id}`, svc.liveKey)).id).toBe(live.id);
    expect(await listIds('/v1/events?project_id=default&environment=datasets', svc.testKey)).toEqual([test.id]);
    expect(await listIds('/v1/events?project_id=default&environment=datasets', svc.liveKey)).toEqual([live.id]);

    // And never the other's.
    await expectError(await svc.api(`/v1/events/${test.id}`, { key: svc.liveKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/events/${live.id}`, { key: svc.testKey }), 404, 'not_found');

    // The same error groups into different issues, each visible in its dataset only.
    const testIssue = issueOf(test);
    const liveIssue = issueOf(live);
    expect(testIssue).not.toBe(liveIssue);
    expect((await getJson(`/v1/issues/${testIssue}`, svc.testKey)).count).toBe(1);
    expect((await getJson(`/v1/issues/${liveIssue}`, svc.liveKey)).count).toBe(1);
    await expectError(await svc.api(`/v1/issues/${testIssue}`, { key: svc.liveKey }), 404, 'not_found');
    await expectError(await svc.api(`/v1/issues/${liveIssue}`, { key: svc.testKey }), 404, 'not_found');
    const liveIssues = (await getJson('/v1/issues?project_id=default', svc.liveKey)).data as Array<{ id: string }>;
    const testIssues = (await getJson('/v1/issues?project_id=default', svc.testKey)).data as Array<{ id: string }>;
    expect(liveIssues.map((i) => i.id)).toContain(liveIssue);
    expect(liveIssues.map((i) => i.id)).not.toContain(testIssue);
    expect(testIssues.map((i) => i.id)).toContain(testIssue);
    expect(testIssues.map((i) => i.id)).not.toContain(liveIssue);
  });

  it('the same event id in both datasets is two events', async () => {
    const id = randomUUID();
    await ingest(fullEvent({ id, environment: 'same-id', message: 'live copy' }), '/v1/events', svc.liveKey);
    await ingest(fullEvent({ id, environment: 'same-id', message: 'test copy' }), '/v1/events', svc.testKey);
    expect((await getJson(`/v1/events/${id}`, svc.liveKey)).message).toBe('live copy');
    expect((await getJson(`/v1/events/${id}`, svc.testKey)).message).toBe('test copy');
  });
});
