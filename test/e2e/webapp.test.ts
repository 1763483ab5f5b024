// The web app over HTTP (no browser): users from the CLI while the service runs, sessions,
// the permalink's content negotiation, CSRF and origin checks, roles, the sign-in rate limit, and
// the security headers. The real-browser walk is webapp-browser.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';
import { createUser, WebClient } from '../support/web.js';
import { WebData } from '../../src/web/data.js';
import type { Storage } from '../../src/storage/storage.js';
import type { Issue } from '../../src/storage/issues.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

let svc: TestService;
let adminPassword: string;
let memberPassword: string;
let issueId: string;

beforeAll(async () => {
  svc = await startService();
  [adminPassword, memberPassword] = await Promise.all([createUser(svc, 'admin@example.com', 'admin'), createUser(svc, 'member@example.com', 'member')]);
  const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id: randomUUID(), timestamp: new Date().toISOString() })) });
  expect(res.status).toBe(202);
  issueId = ((await res.json()) as { permalink: string }).permalink.split('/').at(-1) as string;
});

afterAll(async () => {
  await svc?.stop();
});

describe('the web app', () => {
  it('sends a browser without a session from the permalink to sign-in and back, and keeps JSON for keys', async () => {
    const browser = new WebClient(svc.baseUrl);
    const res = await browser.fetch(`/issues/${issueId}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/signin?next=${encodeURIComponent(`/issues/${issueId}`)}`);
    // A key still gets the JSON issue; no key and no HTML: the 401 as before.
    expect(((await (await svc.api(`/issues/${issueId}`)).json()) as { id: string }).id).toBe(issueId);
    expect((await svc.api(`/issues/${issueId}`, { key: null })).status).toBe(401);

    const signedIn = await browser.signIn('member@example.com', memberPassword, `/issues/${issueId}`);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`/issues/${issueId}`);
    const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith('fl_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // app_url is http here
    const page = await browser.fetch(`/issues/${issueId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).toContain('TypeError');
    expect(html).toContain('submitOrder');
  });

  it('refuses a status change without the CSRF token or from another origin, and applies it with both', async () => {
    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('member@example.com', memberPassword);
    const csrf = WebClient.csrfOf(await (await browser.fetch(`/issues/${issueId}`)).text());
    expect((await browser.post(`/issues/${issueId}/status`, { status: 'resolved' })).status).toBe(403);
    expect((await browser.post(`/issues/${issueId}/status`, { status: 'resolved', _csrf: 'forged' })).status).toBe(403);
    expect((await browser.post(`/issues/${issueId}/status`, { status: 'resolved', _csrf: csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(((await (await svc.api(`/v1/issues/${issueId}`)).json()) as { status: string }).status).toBe('unresolved');
    const ok = await browser.post(`/issues/${issueId}/status`, { status: 'ignored', _csrf: csrf });
    expect(ok.status).toBe(303);
    expect(((await (await svc.api(`/v1/issues/${issueId}`)).json()) as { status: string }).status).toBe('ignored');
    await browser.post(`/issues/${issueId}/status`, { status: 'unresolved', _csrf: csrf });
  });

  it('lets an admin create a key and refuses a member', async () => {
    const member = new WebClient(svc.baseUrl);
    await member.signIn('member@example.com', memberPassword);
    const memberPage = await (await member.fetch('/projects')).text();
    expect(memberPage).not.toContain('Create key');
    const refused = await member.post('/projects/keys', { _csrf: WebClient.csrfOf(memberPage), project: 'default', name: 'sneaky' });
    expect(refused.status).toBe(403);

    const admin = new WebClient(svc.baseUrl);
    await admin.signIn('admin@example.com', adminPassword);
    const adminPage = await (await admin.fetch('/projects')).text();
    const created = await admin.post('/projects/keys', { _csrf: WebClient.csrfOf(adminPage), project: 'default', name: 'from the web', dataset: 'live' });
    expect(created.status).toBe(200);
    const secret = /class="secret">(fl_live_[^<]+)</.exec(await created.text())?.[1];
    expect(secret).toBeDefined();
    expect((await svc.api('/v1/issues?project_id=default', { key: secret })).status).toBe(200);
    const keys = (await (await svc.api('/v1/projects')).json()) as { data: Array<{ keys: Array<{ name: string }> }> };
    expect(keys.data[0].keys.some((k) => k.name === 'from the web')).toBe(true);
  });

  it('lets an admin create a project and a DSN key for it (the DSN listed), and refuses a member', async () => {
    const member = new WebClient(svc.baseUrl);
    await member.signIn('member@example.com', memberPassword);
    const memberPage = await (await member.fetch('/projects')).text();
    expect(memberPage).not.toContain('Create project');
    expect((await member.post('/projects', { _csrf: WebClient.csrfOf(memberPage), id: 'sneaky', name: 'Sneaky' })).status).toBe(403);

    const admin = new WebClient(svc.baseUrl);
    await admin.signIn('admin@example.com', adminPassword);
    const csrf = WebClient.csrfOf(await (await admin.fetch('/projects')).text());
    const created = await admin.post('/projects', { _csrf: csrf, id: 'shop-web', name: 'Shop web', platform: 'javascript' });
    expect(created.status).toBe(303);
    expect((await admin.post('/projects', { _csrf: csrf, id: 'shop-web', name: 'Again' })).status).toBe(409);
    expect((await admin.post('/projects', { _csrf: csrf, id: 'Not An Id', name: 'Bad' })).status).toBe(400);

    expect((await admin.post('/projects/keys', { _csrf: csrf, project: 'shop-web', name: 'browser', dataset: 'live', kind: 'dsn' })).status).toBe(303);
    const projects = (await (await svc.api('/v1/projects')).json()) as {
      data: Array<{ id: string; name: string; keys: Array<{ name: string; type: string; dsn?: string }> }>;
    };
    const project = projects.data.find((p) => p.id === 'shop-web');
    expect(project?.name).toBe('Shop web');
    const dsn = project?.keys.find((k) => k.name === 'browser');
    expect(dsn?.type).toBe('dsn');
    expect(dsn?.dsn).toMatch(/^http:\/\/[0-9a-f]{32}@/);
    const page = await (await admin.fetch('/projects')).text();
    expect(page).toContain(dsn?.dsn as string);
  });

  it('lets an admin create, mute and delete alert rules (every bad field listed), and refuses a member', async () => {
    const member = new WebClient(svc.baseUrl);
    await member.signIn('member@example.com', memberPassword);
    const memberPage = await (await member.fetch('/alerts')).text();
    expect(memberPage).not.toContain('Create rule');
    expect((await member.post('/alerts', { _csrf: WebClient.csrfOf(memberPage), project_id: 'default', name: 'x', type: 'new_issue' })).status).toBe(403);

    const admin = new WebClient(svc.baseUrl);
    await admin.signIn('admin@example.com', adminPassword);
    const csrf = WebClient.csrfOf(await (await admin.fetch('/alerts')).text());
    const bad = await admin.post('/alerts', {
      _csrf: csrf,
      project_id: 'default',
      name: '',
      type: 'error_spike',
      'spike.threshold': '-1',
      'webhook.url': 'not a url',
      // The latency group's fields are not read for an error_spike rule.
      'latency.threshold_ms': 'junk',
    });
    expect(bad.status).toBe(400);
    const badPage = await bad.text();
    for (const field of ['name', 'conditions.threshold', 'conditions.window', 'actions[0].url']) expect(badPage).toContain(`<code>${field}</code>`);
    expect(badPage).not.toContain('conditions.threshold_ms');
    // The form comes back with what was sent.
    expect(badPage).toContain('value="not a url"');

    const created = await admin.post('/alerts', {
      _csrf: csrf,
      project_id: 'default',
      name: 'Spikes <b>from the web</b>',
      type: 'error_spike',
      'spike.threshold': '100',
      'spike.window': '5m',
      'spike.level': 'error',
      log: 'on',
    });
    expect(created.status).toBe(303);
    const list = async () =>
      (
        (await (await svc.api('/v1/alerts?project_id=default')).json()) as {
          data: Array<{ id: string; name: string; enabled: boolean; conditions: unknown; actions: unknown }>;
        }
      ).data;
    const rule = (await list()).find((r) => r.name === 'Spikes <b>from the web</b>');
    expect(rule).toMatchObject({ enabled: true, conditions: { threshold: 100, window: '5m', level: 'error' }, actions: [{ type: 'log' }] });
    expect(await (await admin.fetch('/alerts')).text()).toContain('Spikes &lt;b&gt;from the web&lt;/b&gt;');

    expect((await admin.post(`/alerts/${rule!.id}/enabled`, { _csrf: csrf, enabled: 'false' })).status).toBe(303);
    expect((await list()).find((r) => r.id === rule!.id)?.enabled).toBe(false);
    expect((await admin.post(`/alerts/${rule!.id}/delete`, { _csrf: csrf })).status).toBe(303);
    expect((await list()).some((r) => r.id === rule!.id)).toBe(false);
  });

  it('keeps the admin pages (API keys, source-map deletion) to admins, with the CSRF token checked', async () => {
    const member = new WebClient(svc.baseUrl);
    await member.signIn('member@example.com', memberPassword);
    const keysPage = await (await member.fetch('/keys')).text();
    expect(keysPage).toContain('Organization keys');
    expect(keysPage).not.toContain('Create key');
    const memberCsrf = WebClient.csrfOf(keysPage);
    expect((await member.post('/keys', { _csrf: memberCsrf, name: 'sneaky', scope: '' })).status).toBe(403);
    expect((await member.post('/sourcemaps/nope/delete', { _csrf: memberCsrf })).status).toBe(403);

    const admin = new WebClient(svc.baseUrl);
    await admin.signIn('admin@example.com', adminPassword);
    const csrf = WebClient.csrfOf(await (await admin.fetch('/keys')).text());
    expect((await admin.post('/keys', { _csrf: 'not-the-token', name: 'forged', scope: '' })).status).toBe(403);
    const keys = async () => (await admin.fetch('/keys')).text();
    expect(await keys()).not.toContain('forged');
    const created = await admin.post('/keys', { _csrf: csrf, name: 'ci uploads', scope: 'default', dataset: 'test' });
    expect(created.status).toBe(200);
    const page = await created.text();
    const secret = /<code class="secret">([^<]+)<\/code>/.exec(page)?.[1] ?? '';
    expect(secret).toMatch(/^fl_test_/);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect((await svc.api('/v1/issues', { key: secret })).status).toBe(200);
    expect(await keys()).not.toContain(secret);
    expect((await admin.post('/sourcemaps/nope/delete', { _csrf: csrf })).status).toBe(404);
  });

  it('never authenticates /v1 with a session', async () => {
    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('admin@example.com', adminPassword);
    expect((await browser.fetch('/v1/issues?project_id=default', { headers: { accept: 'application/json' } })).status).toBe(401);
    const post = await browser.fetch('/v1/events', {
      method: 'POST',
      body: JSON.stringify(fullEvent()),
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    });
    expect(post.status).toBe(401);
  });

  it('signs out: the session ends on the server', async () => {
    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('member@example.com', memberPassword);
    const token = browser.cookies.get('fl_session') as string;
    const csrf = WebClient.csrfOf(await (await browser.fetch('/issues')).text());
    expect((await browser.post('/signout', { _csrf: csrf })).headers.get('location')).toBe('/signin');
    // The old cookie replayed: no longer a session.
    const replay = await fetch(`${svc.baseUrl}/issues`, { headers: { cookie: `fl_session=${token}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toMatch(/^\/signin/);
  });

  it('rate-limits failed sign-ins per account', async () => {
    const browser = new WebClient(svc.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await browser.signIn('limited@example.com', 'wrong-password')).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
  });

  it("reads the issue page's events in one pass: the latest event, older/newer links, the chart and the tag counts", async () => {
    const hour = 3600_000;
    const now = Date.now();
    const post = async (hoursAgo: number, browser: string, fingerprint = ['issue-page-timeline']) => {
      const res = await svc.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify(fullEvent({ id: randomUUID(), timestamp: new Date(now - hoursAgo * hour).toISOString(), fingerprint, tags: { browser } })),
      });
      expect(res.status).toBe(202);
      return (await res.json()) as { id: string; permalink: string };
    };
    const oldest = await post(5, 'chrome');
    const middle = await post(3, 'chrome');
    const latest = await post(1, 'safari');
    const other = await post(2, 'chrome', ['another-issue']);
    const issue = latest.permalink.split('/').at(-1) as string;
    expect(oldest.permalink).toBe(latest.permalink);

    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('member@example.com', memberPassword);
    const page = await (await browser.fetch(`/issues/${issue}`)).text();
    expect(page).toContain(latest.id);
    expect(page).toContain(`event=${middle.id}`); // the older link
    expect(page).toContain('Newest event');
    expect(page).toContain('Events per hour, last 24 hours: 3 events');
    expect(page).toMatch(/aria-label="chrome: 2 of 3"/);
    expect(page).toMatch(/aria-label="safari: 1 of 3"/);

    const mid = await (await browser.fetch(`/issues/${issue}?event=${middle.id}`)).text();
    expect(mid).toContain(`event=${latest.id}`);
    expect(mid).toContain(`event=${oldest.id}`);
    const first = await (await browser.fetch(`/issues/${issue}?event=${oldest.id}`)).text();
    expect(first).toContain('Oldest event');

    expect((await browser.fetch(`/issues/${issue}?event=${other.id}`)).status).toBe(404);
    expect((await browser.fetch(`/issues/${issue}?event=${randomUUID()}`)).status).toBe(404);

    // An issue last seen days ago opens on its 30 days, where its events are.
    const old = await post(72, 'firefox', ['issue-page-old']);
    const oldPage = await (await browser.fetch(old.permalink.replace(/^https?:\/\/[^/]+/, ''))).text();
    expect(oldPage).toContain('Events per day, last 30 days: 1 events');
    expect(oldPage).toMatch(/aria-label="firefox: 1 of 1"/);
  });

  it("finds an event's neighbours in a window around it first, and without it when the window holds none", async () => {
    const hour = 3600_000;
    const now = Date.now();
    // Six events of one issue: five an hour apart, and one ten hours before them (an uneven gap).
    const events: Array<{ id: string }> = [];
    for (const hoursAgo of [16, 6, 5, 4, 3, 2]) {
      const event = { id: randomUUID(), timestamp: new Date(now - hoursAgo * hour).toISOString(), fingerprint: ['issue-page-window'] };
      const res = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent(event)) });
      expect(res.status).toBe(202);
      events.push(event);
    }
    const storage = svc.service.storage as Storage;
    const first = JSON.parse((await storage.events.get('live', ['default'], events[0].id)) as string) as { issue_id: string };
    const issue = (await storage.issues.get('live', ['default'], first.issue_id)) as Issue;
    expect(issue.count).toBe(6);
    const data = new WebData(databaseOf(svc.service.host), storage);
    // Windows of 32 events' worth (more than the issue has: none), 2 (14 h / 6 × 2 ≈ 4.7 h) and a
    // tenth of one (~14 min: every neighbour is found by the second look).
    for (const window of [32, 2, 0.1]) {
      const at = async (i: number) => {
        const { event, older, newer } = await data.issueTimeline('live', issue, { unit: 'hour', buckets: 24, now }, events[i].id, window);
        expect(event).toBe(events[i].id);
        return { older, newer };
      };
      expect(await at(1)).toEqual({ older: events[0].id, newer: events[2].id }); // ten hours back: beyond the window of 2
      expect(await at(3)).toEqual({ older: events[2].id, newer: events[4].id });
      expect(await at(0)).toEqual({ older: undefined, newer: events[1].id });
      expect(await at(5)).toEqual({ older: events[4].id, newer: undefined });
    }
  });

  it('does not redirect off-site after sign-in', async () => {
    const browser = new WebClient(svc.baseUrl);
    const res = await browser.signIn('member@example.com', memberPassword, '//evil.example/x');
    expect(res.headers.get('location')).toBe('/');
  });

  it('shows the empty state with how to send a first event', async () => {
    const browser = new WebClient(svc.baseUrl);
    await browser.signIn('admin@example.com', adminPassword);
    const csrf = WebClient.csrfOf(await (await browser.fetch('/issues')).text());
    await browser.post('/dataset', { _csrf: csrf, dataset: 'test', next: '/issues' });
    const html = await (await browser.fetch('/issues')).text();
    expect(html).toContain('Sandbox');
    expect(html).toContain('No issues yet');
    expect(html).toContain('/v1/events');
  });
});
