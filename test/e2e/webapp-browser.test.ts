// The web app in a real browser (Debian's Chromium, driven by playwright-core): sign in through a
// permalink, read the symbolicated frame and its source line, resolve the issue (and see it in
// GET /v1/issues/{id}), walk to the trace waterfall and the replay page, sign out; and hostile
// event content never runs. Screenshots are kept in test-results/web/.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { browserBinary } from '../support/browsers.js';
import { postJson } from '../support/http.js';
import { startService, type TestService } from '../support/service.js';
import { createUser } from '../support/web.js';

const SHOTS = join(packageRoot, 'test-results', 'web');
const SOURCE = `export function priceOf(item) {
  const unit = item.price;
  if (unit === undefined) throw new TypeError("no price for " + item.sku);
  return unit * item.qty;
}
`;
const TRACE_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

let svc: TestService;
let browser: Browser;
let password: string;
let issueId: string;
let permalink: string;
let hostileIssue: string;

const post = (path: string, body: unknown) => postJson(svc, path, body);

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const executablePath = browserBinary('chromium');
  [svc, browser] = await Promise.all([startService(), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })]);
  password = await createUser(svc, 'oncall@example.com', 'admin');

  // A minified build with its source map, uploaded for the release, and an error thrown in it.
  const built = transformSync(SOURCE, { minify: true, sourcemap: 'external', sourcefile: 'src/checkout.ts', format: 'esm', loader: 'ts' });
  await post('/v1/sourcemaps', {
    project_id: 'default',
    release: 'shop@2.0.0',
    files: [
      { name: '~/assets/app.min.js', content: built.code },
      { name: '~/assets/app.min.js.map', content: built.map },
    ],
  });
  const now = Date.now();
  const ack = await post('/v1/events', {
    id: randomUUID(),
    timestamp: new Date(now).toISOString(),
    environment: 'production',
    release: 'shop@2.0.0',
    trace_id: TRACE_ID,
    replay_id: 'rpl_demo1',
    exception: {
      type: 'TypeError',
      value: 'no price for sku-7',
      stacktrace: [{ filename: 'https://shop.example.com/assets/app.min.js', function: 'e', lineno: 1, colno: built.code.indexOf('throw') + 1, in_app: true }],
    },
    tags: { route: '/checkout' },
    breadcrumbs: [{ timestamp: new Date(now - 1000).toISOString(), category: 'ui.click', message: 'button#pay' }],
  });
  // The replay the error happened in: a page's full snapshot and a click (rrweb events).
  await post('/v1/replays', {
    replay_id: 'rpl_demo1',
    segment_id: 0,
    environment: 'production',
    release: 'shop@2.0.0',
    urls: ['https://shop.example.com/checkout'],
    events: [
      { type: 4, data: { href: 'https://shop.example.com/checkout', width: 800, height: 600 }, timestamp: now - 2000 },
      {
        type: 2,
        data: {
          node: {
            type: 0,
            id: 1,
            childNodes: [
              {
                type: 2,
                tagName: 'html',
                attributes: {},
                id: 2,
                childNodes: [{ type: 2, tagName: 'body', attributes: {}, id: 3, childNodes: [{ type: 3, textContent: 'Checkout', id: 4 }] }],
              },
            ],
          },
          initialOffset: { left: 0, top: 0 },
        },
        timestamp: now - 1999,
      },
      { type: 3, data: { source: 2, type: 2, id: 3, x: 10, y: 10 }, timestamp: now - 1000 },
    ],
  });
  permalink = ack.permalink as string;
  issueId = permalink.split('/').at(-1) as string;
  const ns = BigInt(now) * 1_000_000n;
  const span = (id: string, parent: string, service: string, name: string, from: number, to: number, status = 'ok') => ({
    trace_id: TRACE_ID,
    span_id: id,
    parent_span_id: parent,
    name,
    service_name: service,
    start_time: Number((ns + BigInt(from) * 1_000_000n) / 1_000_000n),
    end_time: Number((ns + BigInt(to) * 1_000_000n) / 1_000_000n),
    status,
    attributes: { 'http.route': '/checkout', 'peer.note': '<img src=x onerror=alert(9)>' },
  });
  await post('/v1/traces', {
    spans: [
      span('00000000000000a1', '', 'web', 'POST /checkout', 0, 120),
      span('00000000000000a2', '00000000000000a1', 'api', 'price cart', 10, 90, 'error'),
      span('00000000000000a3', '00000000000000a2', 'db', 'SELECT prices', 20, 60),
    ],
  });

  // Hostile content everywhere an event carries text.
  const hostile = await post('/v1/events', {
    id: randomUUID(),
    timestamp: new Date(now).toISOString(),
    environment: 'production',
    release: '"><img src=x onerror=alert(1)>',
    message: '<script>alert(2)</script>',
    exception: {
      type: 'XSSError',
      value: '"><img src=x onerror=alert(3)><script>alert(4)</script>',
      stacktrace: [{ filename: '"><img src=x onerror=alert(5)>.js', function: '<script>alert(6)</script>', lineno: 1, colno: 1, in_app: true }],
    },
    tags: { '"><img src=x onerror=alert(7)>': 'javascript:alert(8)' },
    user: { email: '"><svg onload=alert(10)>' },
    request: { url: 'javascript:alert(11)', method: 'GET' },
    breadcrumbs: [{ message: '<img src=x onerror=alert(12)>', category: '"><script>alert(13)</script>', data: { href: 'javascript:alert(14)' } }],
    contexts: { evil: { html: '<iframe src="javascript:alert(15)"></iframe>' } },
  });
  hostileIssue = (hostile.permalink as string).split('/').at(-1) as string;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email').fill('oncall@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the web app in Chromium', () => {
  it('walks from the permalink through the issue, the trace and the replay, and signs out', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const local = permalink.replace('http://faultline.test', svc.baseUrl);
    await page.goto(local);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await signIn(page);
    await page.waitForURL(`**/issues/${issueId}`);
    await expect.poll(() => page.locator('h1.issue-title').textContent()).toContain('TypeError');

    // The symbolicated frame: the original file and function, and the line that threw.
    const frame = page.locator('li.frame.in-app').first();
    expect(await frame.locator('.file').textContent()).toContain('src/checkout.ts:3');
    expect(await frame.locator('.fn').textContent()).toContain('priceOf');
    expect(await frame.locator('ol.context li.current').textContent()).toContain('throw new TypeError("no price for " + item.sku)');
    await page.screenshot({ path: join(SHOTS, 'issue-page.png'), fullPage: true });
    // The raw frame, one click away.
    await page.getByRole('link', { name: 'Show raw frames' }).click();
    expect(await page.locator('li.frame .file').first().textContent()).toContain('app.min.js');
    await page.getByRole('link', { name: 'Show symbolicated frames' }).click();

    // Resolve: the page says so, and so does the API.
    await page.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => page.locator('#issue-status').textContent()).toBe('resolved');
    const viaApi = (await (await svc.api(`/v1/issues/${issueId}`)).json()) as { status: string };
    expect(viaApi.status).toBe('resolved');

    // The trace waterfall, linked from the event.
    await page.getByRole('link', { name: 'View trace' }).click();
    await page.waitForURL(`**/traces/${TRACE_ID}`);
    const rows = page.locator('table.waterfall tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await page.locator('table.waterfall tr.error').count()).toBe(1);
    expect(await page.locator('table.waterfall tr.error').getAttribute('data-depth')).toBe('1');
    await page.locator('table.waterfall tr.error summary').click();
    await expect.poll(() => page.locator('table.waterfall tr.error dl').isVisible()).toBe(true);
    expect(await page.locator('table.waterfall tr.error dl').textContent()).toContain('http.route');
    expect(await page.getByRole('link', { name: 'TypeError: no price for sku-7' }).count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'trace-waterfall.png'), fullPage: true });

    // The replay page: rrweb-player plays the stored segment; the error is a bookmark on its timeline.
    await page.goBack();
    await page.getByRole('link', { name: 'View replay' }).click();
    await expect.poll(() => page.locator('#player').getAttribute('data-ready'), { timeout: 15_000 }).toBe('true');
    expect(await page.locator('#player .rr-player').count()).toBe(1);
    expect(await page.locator('button.bookmark').count()).toBe(1);
    await page.locator('button.bookmark').click();
    await page.screenshot({ path: join(SHOTS, 'replay.png') });

    // The live/sandbox switch, then sign out.
    await page.getByRole('button', { name: 'Switch to sandbox' }).click();
    await expect.poll(() => page.locator('[data-dataset]').textContent()).toBe('Sandbox');
    await page.screenshot({ path: join(SHOTS, 'issues-sandbox-empty.png') });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.goto(local);
    expect(new URL(page.url()).pathname).toBe('/signin');
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it('shows hostile event content as text: no dialog, no injected element', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${svc.baseUrl}/issues/${hostileIssue}`);
    await signIn(page);
    await page.waitForURL(`**/issues/${hostileIssue}`);
    // Open every collapsed part so that nothing stays unrendered.
    for (const details of await page.locator('details').all()) await details.evaluate('(d) => d.setAttribute("open", "")');
    await page.waitForTimeout(200);
    // In the page (a string: this program's types have no DOM).
    const injected = await page.evaluate(`({
      img: document.querySelectorAll('img').length,
      svgOnload: document.querySelectorAll('svg[onload]').length,
      iframe: document.querySelectorAll('iframe').length,
      scripts: document.querySelectorAll('script').length,
      handlers: Array.from(document.querySelectorAll('*')).filter((el) => Array.from(el.attributes).some((a) => a.name.startsWith('on'))).length,
      javascriptLinks: Array.from(document.querySelectorAll('a')).filter((a) => a.href.startsWith('javascript:')).length,
    })`);
    expect(injected).toEqual({ img: 0, svgOnload: 0, iframe: 0, scripts: 0, handlers: 0, javascriptLinks: 0 });
    const text = await page.locator('main').textContent();
    expect(text).toContain('<script>alert(4)</script>');
    expect(text).toContain('"><img src=x onerror=alert(5)>.js');
    expect(text).toContain('javascript:alert(11)');
    expect(text).toContain('<img src=x onerror=alert(12)>');
    // The issues list shows the hostile title as text too.
    await page.goto(`${svc.baseUrl}/issues?status=`);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
