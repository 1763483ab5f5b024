// Issue #25's pages in a real browser (Debian's Chromium, driven by playwright-core) at 1280×800:
// the issue page easy to skim (relative times, context tables, the trace and replay one click
// away), the trace waterfall, the traces, replays and releases lists, a release's health, API keys
// (the secret shown once, then revoked), the alert-rule form and source-map bundles. The issue and
// trace pages' screenshots are the README's: `UPDATE_SCREENSHOTS=1 npx vitest run test/e2e/pages-browser.test.ts` renews docs/screenshots/.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { browserBinary } from '../support/browsers.js';
import { postJson } from '../support/http.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

// UPDATE_SCREENSHOTS=1 writes them over the README's; other runs keep them under test-results/.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(packageRoot, 'docs', 'screenshots') : join(packageRoot, 'test-results', 'screenshots');
const TRACE_ID = 'c0ffee00c0ffee00c0ffee00c0ffee01';
const REPLAY_ID = 'rpl_pagesdemo1';
const RELEASE = 'shop@3.1.0';

let svc: TestService;
let browser: Browser;
let page: Page;
let password: string;
let issueId: string;
const dialogs: string[] = [];

const post = (path: string, body: unknown) => postJson(svc, path, body);

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  [svc, browser] = await Promise.all([
    startService(),
    chromium.launch({ executablePath: browserBinary('chromium'), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] }),
  ]);
  password = await createUser(svc, 'lead@example.com', 'admin');
  const now = Date.now();

  // A checkout trace across three services, the error raised in it, and the replay it happened in.
  const ms = (offset: number) => now - 5000 + offset;
  const resource = { 'service.version': '3.1.0', 'deployment.environment.name': 'production' };
  const span = (id: string, parent: string, service: string, name: string, from: number, to: number, status = 'ok') => ({
    trace_id: TRACE_ID,
    span_id: id.padStart(16, '0'),
    parent_span_id: parent && parent.padStart(16, '0'),
    name,
    service_name: service,
    start_time: ms(from),
    end_time: ms(to),
    status,
    resource_attributes: { ...resource, 'service.name': service },
  });
  await post('/v1/traces', {
    spans: [
      span('b1', '', 'web', 'POST /checkout', 0, 420),
      span('b2', 'b1', 'cart-api', 'load cart', 20, 120),
      span('b3', 'b2', 'db', 'SELECT carts', 30, 90),
      span('b4', 'b1', 'cart-api', 'price lines', 130, 400, 'error'),
      span('b5', 'b4', 'pricing-svc', 'GET pricing-svc', 150, 380, 'error'),
    ],
  });
  const ack = await post('/v1/events', {
    id: randomUUID(),
    timestamp: new Date(now - 4700).toISOString(),
    environment: 'production',
    release: RELEASE,
    trace_id: TRACE_ID,
    replay_id: REPLAY_ID,
    exception: {
      type: 'TypeError',
      value: "Cannot read properties of undefined (reading 'price')",
      stacktrace: [
        { filename: 'node_modules/@sentry/browser/build/npm/esm/helpers.js', function: 'sentryWrapped', lineno: 1, colno: 1, in_app: true },
        { filename: 'src/checkout/price.ts', function: 'priceLines', lineno: 42, colno: 17, in_app: true },
      ],
    },
    tags: { route: '/checkout' },
    user: { id: 'u-17', email: 'ada@example.com' },
    contexts: {
      os: { name: 'Linux', version: '6.8' },
      browser: { name: 'Chrome', version: '131.0' },
      runtime: { name: 'node', version: 'v20.18.0' },
      trace: { trace_id: TRACE_ID, span_id: '00000000000000b4', op: 'http.server' },
    },
    breadcrumbs: [{ timestamp: new Date(now - 6000).toISOString(), category: 'ui.click', message: 'button#pay' }],
  });
  issueId = (ack.permalink as string).split('/').at(-1) as string;
  const segment = await postChunk(
    svc,
    'events',
    { replay_id: REPLAY_ID, segment_id: 0, environment: 'production', release: RELEASE },
    rrwebEvents(now - 6000, 30, { href: 'https://shop.example/checkout' }),
  );
  expect(segment.status).toBe(202);

  // Release health: two users, one of whom crashed (session items as a Sentry SDK sends them).
  const project = ((await (await svc.api('/v1/projects')).json()) as { data: Array<{ dsn: string; ingest_id: string }> }).data[0];
  const started = new Date(now - 60_000).toISOString();
  const sessions = [
    { sid: randomUUID(), did: 'ada', init: true, started, status: 'exited', attrs: { release: RELEASE } },
    { sid: randomUUID(), did: 'bob', init: true, started, status: 'crashed', attrs: { release: RELEASE } },
    { sid: randomUUID(), did: 'bob', init: true, started, status: 'exited', attrs: { release: RELEASE } },
    { sid: randomUUID(), did: 'bob', init: true, started, status: 'exited', attrs: { release: RELEASE } },
  ];
  const envelope = [JSON.stringify({}), ...sessions.flatMap((s) => [JSON.stringify({ type: 'session' }), JSON.stringify(s)])].join('\n');
  const sent = await fetch(`${svc.baseUrl}/api/${project.ingest_id}/envelope/`, {
    method: 'POST',
    body: envelope,
    headers: { 'x-sentry-auth': `Sentry sentry_key=${new URL(project.dsn).username}, sentry_version=7` },
  });
  expect(sent.status).toBe(200);

  // A source-map bundle of the release: a minified file of 3 KiB and its map.
  await post('/v1/sourcemaps', {
    project_id: 'default',
    release: RELEASE,
    files: [
      { name: '~/assets/app.min.js', content: `${'x'.repeat(3 * 1024 - 40)}\n//# sourceMappingURL=app.min.js.map` },
      { name: '~/assets/app.min.js.map', content: JSON.stringify({ version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA' }) },
    ],
  });

  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(`${svc.baseUrl}/issues/${issueId}`);
  await page.getByLabel('Email').fill('lead@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`**/issues/${issueId}`);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** The navigation's link, clicked; resolves when the page of `path` has loaded. */
async function navigate(label: string, path: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  await page.waitForURL(`**${path}*`);
}

describe('issue #25 pages in Chromium', () => {
  it('the issue page reads at a glance: relative times, context tables, vendor frames folded, the trace and replay one click away', async () => {
    expect(await page.locator('h1.issue-title').textContent()).toContain('TypeError');
    // Times are relative, the absolute time on hover.
    const firstSeen = page.locator('dl.pairs time').first();
    expect(await firstSeen.textContent()).toMatch(/seconds? ago|just now/);
    expect(await firstSeen.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    // Contexts as key/value tables, not JSON.
    const os = page.locator('table.context-table[data-context="os"]');
    expect(await os.locator('caption').textContent()).toBe('OS');
    expect(await os.locator('tr', { hasText: 'name' }).locator('td').textContent()).toBe('Linux');
    expect(await page.locator('table.context-table[data-context="browser"] tr', { hasText: 'version' }).locator('td').textContent()).toBe('131.0');
    expect(await page.locator('.contexts pre').count()).toBe(0);
    // The Sentry SDK's frame is not in-app: the app's frame is the only one shown open.
    expect(await page.locator('li.frame.in-app .fn').allTextContents()).toEqual(['priceLines']);
    expect(await page.locator('a.replay-link').textContent()).toBe(REPLAY_ID);
    await page.screenshot({ path: join(SCREENSHOTS, 'issue-page.png'), fullPage: true });

    await page.locator('a.trace-link').click();
    await page.waitForURL(`**/traces/${TRACE_ID}`);
    expect(await page.locator('table.waterfall tbody tr').count()).toBe(5);
    await page.screenshot({ path: join(SCREENSHOTS, 'trace-waterfall.png'), fullPage: true });
    await page.goBack();
    await page.locator('a.replay-link').click();
    await page.waitForURL(`**/replays/${REPLAY_ID}`);
  });

  it('lists traces with filters, each a link to its waterfall', async () => {
    await navigate('Traces', '/traces');
    const rows = page.locator('table.traces tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('POST /checkout');
    expect(await rows.first().locator('.badge.error').textContent()).toBe('2');
    await page.getByLabel('Service').fill('pricing-svc');
    await page.getByLabel('Min duration (ms)').fill('400');
    await page.getByLabel('Status').selectOption('error');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('service') === 'pricing-svc');
    expect(await rows.count()).toBe(1);
    await page.getByLabel('Min duration (ms)').fill('500');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((url) => url.searchParams.get('min_duration_ms') === '500');
    expect(await rows.count()).toBe(0);
    // The form refuses a negative duration itself (min=0); a bad pair sent anyway is named on the page.
    const refused = await page.goto(`${svc.baseUrl}/traces?min_duration_ms=500&max_duration_ms=100`);
    expect(refused?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('max_duration_ms');
  });

  it('lists replays, each a link to the player', async () => {
    await navigate('Replays', '/replays');
    const link = page.locator('table.replays tbody tr a').first();
    expect(await link.textContent()).toBe('https://shop.example/checkout');
    await link.click();
    await page.waitForURL(`**/replays/${REPLAY_ID}`);
  });

  it('shows releases and a release page with its new issue and crash-free sessions and users', async () => {
    await navigate('Releases', '/releases');
    const row = page.locator('table.releases tbody tr', { hasText: RELEASE });
    expect(await row.locator('td').nth(5).textContent()).toBe('75.0 %');
    await row.getByRole('link', { name: RELEASE }).click();
    await page.waitForURL('**/releases/*');
    expect(await page.locator('[data-health="sessions"]').textContent()).toBe('75.0 %');
    expect(await page.locator('[data-health="users"]').textContent()).toBe('50.0 %');
    expect(await page.locator('[data-count="events"]').textContent()).toBe('1');
    const newIssues = page.getByRole('table', { name: 'New issues' });
    expect(await newIssues.locator('a').first().getAttribute('href')).toBe(`/issues/${issueId}`);
  });

  it('creates an organization API key (its secret shown once) that the API takes, and revokes it', async () => {
    await navigate('API keys', '/keys');
    await page.getByLabel('Name', { exact: true }).fill('ci-reads');
    await page.getByLabel('Reaches').selectOption('');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('.created-key code.secret').textContent()) ?? '';
    expect(secret).toMatch(/^fl_live_/);
    expect((await svc.api('/v1/projects', { key: secret })).status).toBe(200);
    const row = page.getByRole('table', { name: 'Organization keys' }).locator('tr', { hasText: 'ci-reads' });
    expect(await row.locator('td').nth(2).textContent()).toBe('every project');
    // Shown once: the page read again has no secret.
    await page.goto(`${svc.baseUrl}/keys`);
    expect(await page.locator('code.secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke ci-reads' }).click();
    await page.waitForURL('**/keys');
    expect(await page.getByRole('table', { name: 'Organization keys' }).locator('tr.revoked', { hasText: 'ci-reads' }).count()).toBe(1);
    expect((await svc.api('/v1/projects', { key: secret })).status).toBe(401);
  });

  it('creates an error-spike rule with the labelled form (only its fields shown) and lists it', async () => {
    await navigate('Alerts', '/alerts');
    await page.getByLabel('Name', { exact: true }).fill('Checkout errors spike');
    await page.getByLabel('Fires when').selectOption('error_spike');
    expect(await page.getByLabel('Slower than (ms)').isVisible()).toBe(false);
    await page.getByLabel('More than this many events').fill('50');
    await page.getByLabel('Window', { exact: true }).first().fill('10m');
    await page.getByLabel('Only events of level').selectOption('error');
    await page.getByLabel('Webhook URL', { exact: true }).fill('https://hooks.example.com/faultline');
    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.waitForURL('**/alerts');
    const rule = page.locator('section.rule', { hasText: 'Checkout errors spike' });
    expect(await rule.locator('dl').textContent()).toContain('more than 50 events in 10m, level error');
    const rules = (await (await svc.api('/v1/alerts?project_id=default')).json()) as { data: Array<{ name: string; conditions: unknown; actions: unknown }> };
    expect(rules.data.find((r) => r.name === 'Checkout errors spike')).toMatchObject({
      conditions: { threshold: 50, window: '10m', level: 'error' },
      actions: [{ type: 'webhook', url: 'https://hooks.example.com/faultline' }, { type: 'log' }],
    });
  });

  it('shows source-map bundles with their files in KB and deletes one', async () => {
    await navigate('Source maps', '/sourcemaps');
    const bundle = page.locator('article.bundle').first();
    expect(await bundle.locator('td.size').first().textContent()).toBe('3.0 KB');
    expect(await bundle.locator('tbody tr').count()).toBe(2);
    const id = (await bundle.getAttribute('data-bundle')) as string;
    await bundle.getByRole('button', { name: `Delete bundle ${id}` }).click();
    await page.waitForURL((url) => url.searchParams.has('deleted'));
    expect(await page.locator('article.bundle').count()).toBe(0);
    expect((await svc.api(`/v1/sourcemaps/${id}`)).status).toBe(404);
    expect(dialogs).toEqual([]);
  });
});
