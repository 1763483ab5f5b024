// What a new team saw in its first hour, in Chromium (Debian's, driven by playwright-core) at
// 1280×800: the trace waterfall in parent order with op and kind, the trace's errors by title; the
// issue's replay one click away and the replay's errors linked back; the issues list's sparkline
// with its hours; and no 404 for /favicon.ico on any page.
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserBinary } from '../support/browsers.js';
import { startService, type TestService } from '../support/service.js';
import { postJson } from '../support/http.js';
import { createUser } from '../support/web.js';

const TRACE_ID = 'b1b2c3d4e5f60718293a4b5c6d7e8f90';
const REPLAY_ID = 'rpl_0123456789abcdef0123456789abcdef';

let svc: TestService;
let browser: Browser;
let page: Page;
let issueId: string;
let eventId: string;
let eventAt: number;
const notFound: string[] = [];

const post = (path: string, body: unknown) => postJson(svc, path, body);

beforeAll(async () => {
  const executablePath = browserBinary('chromium');
  [svc, browser] = await Promise.all([startService(), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })]);
  const password = await createUser(svc, 'newteam@example.com', 'admin');
  const now = Date.now();
  // The waterfall of the report: `GET pricing-svc` (child of `price lines`) starts after its
  // sibling-of-parent `SELECT carts`, and `cache lookup` starts with its parent, its id sorting first.
  const ms = (offset: number) => now - 5000 + offset;
  const span = (id: string, parent: string, name: string, from: number, to: number, extra: Record<string, unknown> = {}) => ({
    trace_id: TRACE_ID,
    span_id: id,
    parent_span_id: parent,
    name,
    service_name: 'shop',
    start_time: ms(from),
    end_time: ms(to),
    ...extra,
  });
  await post('/v1/traces', {
    spans: [
      span('00000000000000f5', '00000000000000f3', 'GET pricing-svc', 30, 90, { kind: 'client', attributes: { 'http.request.method': 'GET' } }),
      span('00000000000000f4', '00000000000000f1', 'SELECT carts', 20, 40, { kind: 'client', attributes: { 'db.system': 'postgresql' } }),
      span('00000000000000f1', '', 'POST /checkout', 0, 200, { kind: 'server', attributes: { 'sentry.op': 'http.server' } }),
      span('00000000000000f3', '00000000000000f1', 'price lines', 10, 150, { kind: 'internal', status: 'error' }),
      span('00000000000000a0', '00000000000000f5', 'cache lookup', 30, 35),
    ],
  });
  eventAt = now - 4000;
  const ack = await post('/v1/events', {
    id: randomUUID(),
    timestamp: new Date(eventAt).toISOString(),
    environment: 'production',
    release: 'shop@3.0.0',
    trace_id: TRACE_ID,
    replay_id: REPLAY_ID,
    exception: { type: 'PricingError', value: 'no price for sku-9' },
  });
  eventId = ack.id as string;
  issueId = (ack.permalink as string).split('/').at(-1) as string;
  await post('/v1/replays', {
    replay_id: REPLAY_ID,
    segment_id: 0,
    environment: 'production',
    urls: ['https://shop.example.com/checkout'],
    events: [
      { type: 4, data: { href: 'https://shop.example.com/checkout', width: 800, height: 600 }, timestamp: now - 6000 },
      { type: 3, data: { source: 2, type: 2, id: 3, x: 10, y: 10 }, timestamp: now - 3000 },
    ],
  });

  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  await page.goto(`${svc.baseUrl}/signin`);
  await page.getByLabel('Email').fill('newteam@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/issues');
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('the first hour in Chromium', () => {
  it('the waterfall shows each span under its parent, siblings by start, with op and kind; the errors by title', async () => {
    await page.goto(`${svc.baseUrl}/traces/${TRACE_ID}`);
    const rows = page.locator('table.waterfall tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-span-id'), tr.getAttribute('data-depth')]))).toEqual([
      ['00000000000000f1', '0'], // POST /checkout
      ['00000000000000f3', '1'], // price lines (10 ms)
      ['00000000000000f5', '2'], // GET pricing-svc (30 ms), under its parent, before SELECT carts (20 ms)
      ['00000000000000a0', '3'], // cache lookup, under GET pricing-svc though it starts with it and its id sorts first
      ['00000000000000f4', '1'], // SELECT carts
    ]);
    const ops = await page.locator('table.waterfall tbody td.op').allTextContents();
    expect(ops.map((t) => t.replace(/\s+/g, ' ').trim())).toEqual([
      'http.server · server',
      'internal',
      'http · client',
      'unspecified',
      'db postgresql · client',
    ]);
    expect(await page.locator('table.waterfall thead th').allTextContents()).toContain('Op / kind');
    const link = page.getByRole('link', { name: 'PricingError: no price for sku-9' });
    expect(await link.getAttribute('href')).toBe(`/issues/${issueId}?event=${eventId}`);
    expect(await page.getByRole('link', { name: /^Event / }).count()).toBe(0);
  });

  it("the issue links to the replay, and the replay's errors link back", async () => {
    await page.goto(`${svc.baseUrl}/issues/${issueId}`);
    await page.getByRole('link', { name: 'View replay' }).click();
    await page.waitForURL(`**/replays/${REPLAY_ID}`);
    const error = page.locator('section[aria-labelledby="bookmarks"] li a');
    expect(await error.textContent()).toBe('PricingError: no price for sku-9');
    await error.click();
    await page.waitForURL(`**/issues/${issueId}**`);
    await expect.poll(() => page.locator('h1.issue-title').textContent()).toContain('PricingError');
  });

  it('the issues list draws 24 hourly bars with their hours, the current one holding the event', async () => {
    await page.goto(`${svc.baseUrl}/issues?status=`);
    const bars = page.locator('table.issues svg.spark').first().locator('rect');
    expect(await bars.count()).toBe(24);
    const titles = await bars.evaluateAll((rects) => rects.map((r) => r.querySelector('title')?.textContent ?? ''));
    const HOUR = 3_600_000;
    const hour = new Date(Math.floor(eventAt / HOUR) * HOUR).toISOString();
    const bucket = 23 - (Math.floor(Date.now() / HOUR) - Math.floor(eventAt / HOUR)); // 23 but across an hour's turn
    expect(titles[bucket]).toBe(`${hour.slice(0, 10)} ${hour.slice(11, 16)}–${new Date(Date.parse(hour) + HOUR).toISOString().slice(11, 16)} UTC: 1 event`);
    expect(titles[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:00–\d\d:00 UTC: 0 events$/);
    // Empty hours are drawn as a baseline: the axis shows even with one busy hour.
    const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute('height'))));
    expect(heights.filter((h) => h === 1)).toHaveLength(23);
    expect(heights[bucket]).toBe(20);
  });

  it('/favicon.ico is an icon, and no page asked for anything that was not there', async () => {
    const res = await fetch(`${svc.baseUrl}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]); // ICONDIR: an icon with one image
    expect([bytes.readUInt32LE(6 + 8), bytes.readUInt32LE(6 + 12)]).toEqual([bytes.length - 22, 22]); // the image's size and offset
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.ico');
    await page.goto(`${svc.baseUrl}/favicon.ico`);
    expect(notFound).toEqual([]);
  });
});
