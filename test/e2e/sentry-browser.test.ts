// The unmodified @sentry/browser, from npm, in headless Chromium (Debian's, driven by playwright-core)
// pointed at a Faultline DSN (issue #16): the page is served from another loopback origin than the
// service, so every request is cross-origin and a preflighted one really is preflighted. A captured
// exception and an unhandled error become events grouped into issues; browserTracingIntegration's
// pageload and its child spans (streamed as `span` items) become a trace the error event links to
// by its trace id, every span's ids and times exactly as the SDK sent them; the replay integration's
// recording becomes a replay; a minified bundle whose debug ids `sentry-cli sourcemaps inject`
// injected, uploaded with `faultline sourcemaps upload`, gets its frames symbolicated; a project
// whose allowed_origins leave the page out refuses it. Everything is read back through /v1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { browserBinary } from '../support/browsers.js';
import { childEnv, runCli } from '../support/process.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { catalogOf } from '../../extensions/catalog/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- documents read back are checked field by field
type Json = Record<string, any>;

const RELEASE = 'shop@3.1.0';
/** The app's source: `priceOf` throws on line 3, column 37 (the `new`), called from `checkout`. */
const APP_SOURCE = `export function priceOf(item: { sku: string; qty: number; price?: number }): number {
  const unit = item.price;
  if (unit === undefined) throw new TypeError(\`no price for \${item.sku}\`);
  return unit * item.qty;
}

export function checkout(items: Array<{ sku: string; qty: number; price?: number }>): number {
  return items.reduce((sum, item) => sum + priceOf(item), 0);
}

(globalThis as unknown as { checkout: typeof checkout }).checkout = checkout;
`;

let svc: TestService;
let browser: Browser;
let page: Page;
let site: Server;
let pageOrigin: string;
let dsn: string;
let publicKey: string;
let ingestId: number;
let buildDir: string;
/** The envelopes the page sent, as sent (the SDK's own bytes, to compare the stored trace with). */
const sentEnvelopes: Buffer[] = [];

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not arrive within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function eventMatching(text: string): Promise<Json> {
  return until(`an event matching "${text}"`, async () => {
    const res = await svc.api(`/v1/events?project_id=default&query=${encodeURIComponent(text)}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const [event] = ((await res.json()) as { data: Json[] }).data;
    if (!event) return undefined;
    return (await (await svc.api(`/v1/events/${event.id as string}`)).json()) as Json;
  });
}

/** An envelope's items as [header, parsed payload] (the browser SDK writes JSON items on one line each, `length` optional). */
function envelopeItems(body: Buffer): Array<[Json, Json]> {
  const items: Array<[Json, Json]> = [];
  let at = body.indexOf(0x0a) + 1;
  while (at > 0 && at < body.length) {
    const headerEnd = body.indexOf(0x0a, at);
    const header = JSON.parse(body.subarray(at, headerEnd).toString('utf8')) as Json;
    const length = typeof header.length === 'number' ? header.length : body.indexOf(0x0a, headerEnd + 1) - headerEnd - 1;
    const payload = body.subarray(headerEnd + 1, length < 0 ? body.length : headerEnd + 1 + length);
    let parsed: Json = {};
    try {
      parsed = JSON.parse(payload.toString('utf8')) as Json;
    } catch {
      // a binary item (a replay recording): not needed here
    }
    items.push([header, parsed]);
    at = headerEnd + 1 + payload.length + 1;
  }
  return items;
}

/** Sentry's float seconds as the decimal the SDK wrote, in nanoseconds (as text, like the API). */
function nanos(seconds: number): string {
  const [whole, fraction = ''] = String(seconds).split('.');
  return (BigInt(whole) * 1_000_000_000n + BigInt(fraction.slice(0, 9).padEnd(9, '0'))).toString();
}

/** The browser SDK bundled as the page loads it: `window.Sentry`. */
async function sdkBundle(): Promise<string> {
  const out = await build({
    stdin: { contents: "import * as Sentry from '@sentry/browser'; globalThis.Sentry = Sentry;", resolveDir: packageRoot, loader: 'js' },
    bundle: true,
    format: 'iife',
    minify: true,
    target: 'chrome110',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

/** The app minified with its map, debug ids injected by sentry-cli, uploaded by `faultline sourcemaps upload`. */
async function buildAndUploadApp(): Promise<string> {
  buildDir = tempDir('faultline-sentry-browser-');
  mkdirSync(join(buildDir, 'src'));
  writeFileSync(join(buildDir, 'src/checkout.ts'), APP_SOURCE);
  await build({
    entryPoints: [join(buildDir, 'src/checkout.ts')],
    outfile: join(buildDir, 'dist/assets/app.min.js'),
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    target: 'chrome110',
    logLevel: 'silent',
  });
  const inject = spawnSync(join(packageRoot, 'node_modules/.bin/sentry-cli'), ['sourcemaps', 'inject', join(buildDir, 'dist')], {
    encoding: 'utf8',
    env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: 'true' },
  });
  expect(inject.status, `${inject.stdout}\n${inject.stderr}`).toBe(0);
  const code = readFileSync(join(buildDir, 'dist/assets/app.min.js'), 'utf8');
  expect(code).toMatch(/\/\/# debugId=[0-9a-f-]{36}/);
  const upload = await runCli(['sourcemaps', 'upload', '--project', 'default', '--release', RELEASE, '--url', svc.baseUrl, join(buildDir, 'dist')], {
    ...childEnv(buildDir),
    FAULTLINE_KEY: svc.liveKey,
  });
  expect(upload.code, `${upload.stdout}\n${upload.stderr}`).toBe(0);
  expect(upload.stdout).toMatch(/~\/assets\/app\.min\.js\.map\s+source_map\s+\d+\s+[0-9a-f-]{36}/);
  return code;
}

beforeAll(async () => {
  const executablePath = browserBinary('chromium');
  const launching = chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const [started, sdk] = await Promise.all([startService(), sdkBundle()]);
  svc = started;
  const app = await buildAndUploadApp();
  const [project] = ((await (await svc.api('/v1/projects')).json()) as { data: Json[] }).data;
  const url = new URL(project.dsn as string);
  publicKey = url.username;
  ingestId = project.ingest_id as number;
  dsn = `http://${publicKey}@${new URL(svc.baseUrl).host}${url.pathname}`;

  // The shop's own origin: another port than the service's.
  site = createServer((req, res) => {
    const scripts: Record<string, string> = { '/sentry.js': sdk, '/assets/app.min.js': app };
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>shop</title><button id="pay" data-sku="mug">Pay</button>` +
          `<script src="/sentry.js"></script><script src="/assets/app.min.js"></script>` +
          `<script>Sentry.init(${JSON.stringify({ dsn, release: RELEASE, environment: 'staging', replaysSessionSampleRate: 1, replaysOnErrorSampleRate: 1, tracesSampleRate: 1 }).slice(0, -1)},` +
          ` integrations: [Sentry.replayIntegration({ maskAllText: false, blockAllMedia: false, minReplayDuration: 0, flushMinDelay: 100 }),` +
          ` Sentry.browserTracingIntegration({ idleTimeout: 300 })] });</script>` +
          // The shop's handler calls into the minified bundle and reports what it throws.
          `<script>document.getElementById('pay').addEventListener('click', () => {` +
          ` try { checkout([{ sku: document.getElementById('pay').dataset.sku, qty: 1 }]); } catch (error) { Sentry.captureException(error); } });</script>`,
      );
    } else if (req.url && scripts[req.url] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(scripts[req.url]);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  browser = await launching;
  page = await browser.newPage();
  page.on('request', (request) => {
    const body = request.postDataBuffer();
    if (request.url().includes('/envelope/') && body) sentEnvelopes.push(body);
  });
  await page.goto(`${pageOrigin}/`);
  await page.waitForFunction(() => (globalThis as unknown as { Sentry?: { getReplay(): unknown } }).Sentry?.getReplay() !== undefined);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (site) await new Promise<void>((resolve) => site.close(() => resolve()));
  await svc?.stop();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

describe('@sentry/browser in Chromium', () => {
  it('captureException from a minified bundle with debug ids: an event with symbolicated frames, grouped into an issue', async () => {
    await page.click('#pay');
    // Another sku: a different message, so that the SDK's dedupe integration sends it too.
    await page.locator('#pay').evaluate((button) => button.setAttribute('data-sku', 'cup'));
    await page.click('#pay');
    const event = await eventMatching('no price for mug');
    expect(event).toMatchObject({
      platform: 'javascript',
      release: RELEASE,
      environment: 'staging',
      exception: { type: 'TypeError', value: 'no price for mug' },
    });
    expect(event.exception.mechanism).toMatchObject({ handled: true });
    expect(event.debug_meta?.images).toEqual([expect.objectContaining({ type: 'sourcemap', code_file: `${pageOrigin}/assets/app.min.js` })]);
    const frames = (event.exception.stacktrace as Json[]).filter((frame) => /checkout\.ts$/.test(String(frame.filename)));
    expect(
      frames.map((frame) => [frame.function, frame.lineno]),
      JSON.stringify({ raw: event.exception.raw_stacktrace, stacktrace: event.exception.stacktrace, processing_errors: event.processing_errors }),
    ).toEqual([
      ['checkout', 8],
      [undefined, 8], // the arrow function given to reduce: anonymous (the SDK's `?` is not a name)
      ['priceOf', 3],
    ]);
    expect(event.culprit).toMatch(/^priceOf /);
    // Only the frames of the page's inline script and of the SDK's bundle (no maps uploaded) are noted.
    expect((event.processing_errors as Json[]).map((note) => note.type)).toEqual(['missing_source_map', 'missing_source_map']);
    expect(JSON.stringify(event.processing_errors)).not.toContain('app.min.js');
    expect(event.request?.url).toBe(`${pageOrigin}/`);
    expect(event.issue_id).toEqual(expect.any(String));
    const issue = await until('both events in the issue', async () => {
      const body = (await (await svc.api(`/v1/issues/${event.issue_id as string}`)).json()) as Json;
      return body.count === 2 ? body : undefined;
    });
    expect(issue).toMatchObject({ count: 2 });
  });

  it('browserTracingIntegration: the pageload and its child spans read back as a trace, exactly; the error event carries its trace id', async () => {
    // @sentry/browser 11 streams spans (`span` items, `{version: 2, items}`) instead of sending a
    // transaction: the pageload segment and its children arrive once the idle pageload ends.
    const sent = await until('the pageload spans', async () => {
      const spans = sentEnvelopes.flatMap((body) =>
        envelopeItems(body).flatMap(([header, payload]) => (header.type === 'span' && Array.isArray(payload.items) ? (payload.items as Json[]) : [])),
      );
      const root = spans.find((span) => span.is_segment === true && span.attributes?.['sentry.op']?.value === 'pageload');
      return root ? { root, spans: spans.filter((span) => span.trace_id === root.trace_id) } : undefined;
    });
    const { root } = sent;
    expect(sent.spans.length).toBeGreaterThan(5);
    const trace = await until('the trace', async () => {
      const res = await svc.api(`/v1/traces/${root.trace_id as string}`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as Json;
      return body.span_count >= sent.spans.length ? body : undefined;
    });
    expect(trace.root_span_id).toBe(root.span_id);
    const stored = new Map((trace.spans as Json[]).map((span) => [span.span_id as string, span]));
    expect([...stored.keys()].sort()).toEqual(sent.spans.map((span) => span.span_id as string).sort());
    // What the SDK measured, as the trace shows it: ids, parents, op and description, times to the nanosecond.
    for (const want of sent.spans) {
      const span = stored.get(want.span_id as string) as Json;
      expect(span, want.span_id as string).toMatchObject({
        trace_id: root.trace_id,
        parent_span_id: want.parent_span_id ?? '',
        name: want.name,
        start_time_unix_nano: nanos(want.start_timestamp as number),
        end_time_unix_nano: nanos(want.end_timestamp as number),
      });
      expect(span.attributes['sentry.op']).toBe(want.attributes['sentry.op'].value);
      expect(BigInt(span.end_time_unix_nano as string) - BigInt(span.start_time_unix_nano as string)).toBe(
        BigInt(nanos(want.end_timestamp as number)) - BigInt(nanos(want.start_timestamp as number)),
      );
      if (want !== root) expect(want.parent_span_id).toBe(root.span_id);
    }
    // The children are the browser's own measurements: the page's scripts among them.
    const children = (trace.spans as Json[]).filter((span) => span.span_id !== root.span_id);
    expect(children.map((span) => span.attributes['sentry.op'])).toEqual(expect.arrayContaining(['browser.dom_content_loaded_event', 'resource.script']));
    // The error captured on the page carries the pageload's trace id: the event links to the trace.
    const event = await eventMatching('no price for mug');
    expect(event.trace_id).toBe(root.trace_id);
  });

  it('an unhandled error is reported by the global handler, unhandled', async () => {
    await page.evaluate(() => {
      setTimeout(() => {
        throw new RangeError('unhandled in the browser');
      });
    });
    const event = await eventMatching('unhandled in the browser');
    expect(event.exception).toMatchObject({ type: 'RangeError', mechanism: { handled: false } });
    expect(event.issue_id).toEqual(expect.any(String));
  });

  it('the replay integration sends a replay with a full snapshot, listed on GET /v1/replays', async () => {
    const replayId = await page.evaluate(async () => {
      const replay = (globalThis as unknown as { Sentry: { getReplay(): { flush(): Promise<void>; getReplayId(): string | undefined } } }).Sentry.getReplay();
      await replay.flush();
      return replay.getReplayId();
    });
    expect(replayId).toMatch(/^[0-9a-f]{32}$/);
    const id = `rpl_${replayId as string}`;
    const listed = await until('the replay', async () => {
      const body = (await (await svc.api('/v1/replays?project_id=default')).json()) as { data: Json[] };
      return body.data.find((replay) => replay.id === id);
    });
    expect(listed).toMatchObject({ id, release: RELEASE, environment: 'staging' });
    const res = await svc.api(`/v1/replays/${id}/segments/0`);
    expect(res.status, await res.clone().text()).toBe(200);
    const events = (await res.json()) as Json[];
    expect(events.some((event) => event.type === 2 && event.data?.node)).toBe(true); // rrweb's full snapshot
    expect(events.some((event) => event.type === 4 && event.data?.href === `${pageOrigin}/`)).toBe(true); // its meta

    // The errors captured while the replay recorded are linked both ways: each event names the
    // replay (the SDK sent the id as the tag replayId), and the replay lists them as bookmarks.
    const event = await eventMatching('no price for mug');
    expect(event.replay_id).toBe(id);
    const replay = await until('the bookmarks', async () => {
      const body = (await (await svc.api(`/v1/replays/${id}`)).json()) as Json;
      return (body.error_bookmarks as Json[]).length >= 3 ? body : undefined;
    });
    const bookmarks = replay.error_bookmarks as Json[];
    expect(bookmarks.map((b) => b.event_id)).toContain(event.id);
    expect(bookmarks.find((b) => b.event_id === event.id)).toMatchObject({ issue_id: event.issue_id, title: expect.stringContaining('no price for mug') });
    expect(bookmarks.map((b) => String(b.title))).toEqual(expect.arrayContaining([expect.stringContaining('unhandled in the browser')]));
    // No note on the segments for a field the SDK sends (replay_start_timestamp).
    expect(replay.processing_errors).toEqual([]);
  });

  it('a preflighted request passes the preflight; a project whose allowed_origins leave the page out refuses it', async () => {
    const envelopeUrl = `${svc.baseUrl}/api/${ingestId}/envelope/`;
    const send = (url: string, key: string) =>
      page.evaluate(
        async ([url, key]) => {
          const body = `{}\n{"type":"client_report"}\n{"discarded_events":[]}\n`;
          try {
            const res = await fetch(url, {
              method: 'POST',
              headers: { 'content-type': 'application/x-sentry-envelope', 'x-sentry-auth': `Sentry sentry_key=${key}, sentry_version=7` },
              body,
            });
            return res.status;
          } catch (error) {
            return String(error);
          }
        },
        [url, key],
      );
    expect(await send(envelopeUrl, publicKey)).toBe(200);

    await catalogOf(svc.service.host).setAllowedOrigins('default', ['https://shop.example.com']);
    try {
      expect(await send(envelopeUrl, publicKey)).toMatch(/TypeError: Failed to fetch/);
      // The SDK's own request (a simple one, not preflighted) is refused too; nothing is stored.
      await page.evaluate(() => (globalThis as unknown as { Sentry: { captureMessage(m: string): void } }).Sentry.captureMessage('from a refused origin'));
      const refused = await fetch(envelopeUrl, { method: 'OPTIONS', headers: { origin: pageOrigin, 'access-control-request-method': 'POST' } });
      expect(refused.status).toBe(403);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const res = await svc.api(`/v1/events?project_id=default&query=${encodeURIComponent('from a refused origin')}`);
      expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
    } finally {
      await catalogOf(svc.service.host).setAllowedOrigins('default', null);
    }
  });
});
