// End to end: GET /v1/projects — DSN, keys (never a secret), telemetry status and pagination.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

let svc: TestService;
const secrets: string[] = [];
let shopKey: { id: string; secret: string };
let shopTestKey: { id: string; secret: string };

interface Activity {
  last_received_at: string | null;
  count_24h: number;
}

interface ProjectRecord {
  id: string;
  slug: string;
  name: string;
  platform: string | null;
  created_at: string;
  ingest_id: number;
  dsn: string;
  keys: Array<Record<string, unknown>>;
  telemetry: { status: string; errors: Activity; traces: Activity; replays: Activity };
}

interface ProjectPage {
  data: ProjectRecord[];
  has_more: boolean;
  next_cursor: string | null;
}

beforeAll(async () => {
  svc = await startService();
  const catalog = catalogOf(svc.service.host);
  await catalog.createProject({ id: 'shop', name: 'Shop', platform: 'python' });
  await catalog.createProject({ id: 'blog', name: 'Blog' });
  await catalog.createProject({ id: 'zeta', name: 'Zeta', platform: 'go' });
  const live = await catalog.createKey({ dataset: 'live', projectId: 'shop', name: 'shop live' });
  const test = await catalog.createKey({ dataset: 'test', projectId: 'shop', name: 'shop test' });
  shopKey = { id: live.key.id, secret: live.secret };
  shopTestKey = { id: test.key.id, secret: test.secret };
  secrets.push(svc.liveKey, svc.testKey, live.secret, test.secret);
});

afterAll(async () => {
  await svc?.stop();
});

async function projects(query = '', key?: string): Promise<{ page: ProjectPage; text: string }> {
  const res = await svc.api(`/v1/projects${query}`, { key });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { page: JSON.parse(text) as ProjectPage, text };
}

async function project(id: string, key?: string): Promise<ProjectRecord> {
  const { page } = await projects('?limit=1000', key);
  const found = page.data.find((p) => p.id === id);
  expect(found, `project ${id} in ${page.data.map((p) => p.id).join(', ')}`).toBeDefined();
  return found!;
}

function expectNoSecret(text: string): void {
  for (const secret of secrets) {
    expect(text).not.toContain(secret);
    // Not even the random part of it.
    expect(text).not.toContain(secret.slice(8));
  }
}

async function ingest(projectId: string, key?: string): Promise<void> {
  const res = await svc.api(`/v1/events${key ? '' : `?project_id=${projectId}`}`, {
    method: 'POST',
    body: JSON.stringify(fullEvent({ id: randomUUID() })),
    key,
  });
  expect(res.status, await res.text()).toBe(202);
}

describe('GET /v1/projects', () => {
  it('lists every project of the organization with the organization key', async () => {
    const { page, text } = await projects();
    expect(page.data.map((p) => p.id).sort()).toEqual(['blog', 'default', 'shop', 'zeta']);
    expect(page.has_more).toBe(false);
    expect(page.next_cursor).toBeNull();
    expectNoSecret(text);

    const byId = new Map(page.data.map((p) => [p.id, p]));
    const shop = byId.get('shop')!;
    expect(shop.slug).toBe('shop');
    expect(shop.name).toBe('Shop');
    expect(shop.platform).toBe('python');
    expect(byId.get('blog')!.name).toBe('Blog');
    expect(byId.get('default')!.platform).toBe('javascript');

    const publicKeys = new Set<string>();
    for (const p of page.data) {
      expect(Object.keys(p)).toEqual(expect.arrayContaining(['id', 'slug', 'name', 'platform', 'created_at', 'dsn', 'keys', 'telemetry']));
      expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      expect(Math.abs(Date.parse(p.created_at) - Date.now())).toBeLessThan(5 * 60_000);
      // The DSN names the project's numeric ingest id (Sentry SDKs accept only a number there).
      expect(p.ingest_id).toEqual(expect.any(Number));
      const dsn = new RegExp(`^http://([0-9a-f]{32})@faultline\\.test/${p.ingest_id}$`).exec(p.dsn);
      expect(dsn, p.dsn).not.toBeNull();
      publicKeys.add(dsn![1]);
      expect(Array.isArray(p.keys)).toBe(true);
    }
    // Every project has its own DSN public key.
    expect(publicKeys.size).toBe(page.data.length);
  });

  it("lists a project's keys without their secrets", async () => {
    const { text } = await projects();
    const shop = await project('shop');
    const keyIds = shop.keys.filter((k) => k.type === 'api').map((k) => k.id);
    expect(keyIds.sort()).toEqual([shopKey.id, shopTestKey.id].sort());
    // Besides them, the DSN key each project gets, whose public key is in its DSN.
    expect(shop.keys.filter((k) => k.type === 'dsn').map((k) => k.dsn)).toEqual([shop.dsn]);
    const live = shop.keys.find((k) => k.id === shopKey.id)!;
    expect(live.name).toBe('shop live');
    expect(JSON.stringify(live)).not.toContain(shopKey.secret);
    for (const key of shop.keys) {
      for (const value of Object.values(key)) {
        if (typeof value === 'string') for (const secret of secrets) expect(secret).not.toContain(value.length >= 16 ? value : '\u0000');
      }
    }
    expect((await project('blog')).keys.filter((k) => k.type === 'api')).toEqual([]);
    expectNoSecret(text);
  });

  it('shows a key revoked', async () => {
    const catalog = catalogOf(svc.service.host);
    const created = await catalog.createKey({ dataset: 'live', projectId: 'zeta', name: 'zeta, soon revoked' });
    secrets.push(created.secret);
    const before = (await project('zeta')).keys.find((k) => k.id === created.key.id);
    expect(before?.revoked_at ?? null).toBeNull();
    await catalog.revokeKey(created.key.id);
    const after = (await project('zeta')).keys.find((k) => k.id === created.key.id);
    expect(typeof after?.revoked_at).toBe('string');
  });

  it('telemetry: no_data before any event, receiving after one, count_24h counting events', async () => {
    const before = await project('blog');
    expect(before.telemetry.status).toBe('no_data');
    expect(before.telemetry.errors).toEqual({ last_received_at: null, count_24h: 0 });

    const start = Date.now();
    await ingest('blog');
    const one = await project('blog');
    expect(one.telemetry.status).toBe('receiving');
    expect(one.telemetry.errors.count_24h).toBe(1);
    expect(one.telemetry.errors.last_received_at).not.toBeNull();
    expect(Date.parse(one.telemetry.errors.last_received_at!)).toBeGreaterThanOrEqual(start - 1000);

    await ingest('blog');
    await ingest('blog');
    expect((await project('blog')).telemetry.errors.count_24h).toBe(3);
    // Other projects are not affected.
    expect((await project('zeta')).telemetry.status).toBe('no_data');
    expect((await project('zeta')).telemetry.errors.count_24h).toBe(0);
  });

  it('telemetry counts the dataset of the key only', async () => {
    await ingest('shop', shopTestKey.secret);
    await ingest('shop', shopTestKey.secret);
    const viaTest = await project('shop', svc.testKey);
    expect(viaTest.telemetry.status).toBe('receiving');
    expect(viaTest.telemetry.errors.count_24h).toBe(2);
    const viaLive = await project('shop', svc.liveKey);
    expect(viaLive.telemetry.status).toBe('no_data');
    expect(viaLive.telemetry.errors.count_24h).toBe(0);
  });

  it('a project key sees only its project', async () => {
    const { page, text } = await projects('', shopKey.secret);
    expect(page.data.map((p) => p.id)).toEqual(['shop']);
    expect(page.has_more).toBe(false);
    expectNoSecret(text);
  });

  it('paginates with limit=1: has_more and a next_cursor that leads to the next project', async () => {
    const all = (await projects()).page.data.map((p) => p.id);
    expect(all.length).toBe(4);
    const walked: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { page }: { page: ProjectPage } = await projects(`?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages++;
      expect(page.data.length).toBe(1);
      walked.push(page.data[0].id);
      if (walked.length < all.length) {
        expect(page.has_more).toBe(true);
        expect(typeof page.next_cursor).toBe('string');
      } else {
        expect(page.has_more).toBe(false);
        expect(page.next_cursor).toBeNull();
      }
      cursor = page.next_cursor;
      expect(pages).toBeLessThanOrEqual(all.length);
    } while (cursor);
    expect(walked).toEqual(all);
    expect(new Set(walked).size).toBe(all.length);
  });

  it('refuses a bad limit and a bad cursor with 400 invalid_parameter', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=x', '?cursor=']) {
      const res = await svc.api(`/v1/projects${query}`);
      if (query === '?cursor=') {
        // An empty cursor is no cursor.
        expect(res.status).toBe(200);
        continue;
      }
      const body = (await res.json()) as { error: { code: string; request_id: string } };
      expect(res.status).toBe(400);
      expect(body.error.code).toBe('invalid_parameter');
      expect(res.headers.get('x-request-id')).toBe(body.error.request_id);
    }
  });

  it('refuses a cursor it did not issue with 400 invalid_parameter, like the other lists', async () => {
    for (const cursor of ['garbage', Buffer.from('[1,2]').toString('base64url')]) {
      const res = await svc.api(`/v1/projects?cursor=${cursor}`);
      const text = await res.text();
      expect(res.status, `cursor=${cursor}: ${text}`).toBe(400);
      expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    }
  });

  it('needs a key', async () => {
    const res = await svc.api('/v1/projects', { key: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
  });
});
