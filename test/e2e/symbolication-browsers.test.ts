// End to end in real browsers (issue #11's "Done when"): the esbuild builds of two releases of the
// fixture app are uploaded with `faultline sourcemaps upload` to a `faultline start` process,
// loaded in headless Chromium and Firefox from a loopback server, and the stacks the browsers
// print are posted as events. The original frames come back, and the same error in both releases
// (different bundles: an unrelated module changed, every offset and minified name moved) is one
// issue. Chromium and Firefox must be installed (.ci/run installs them); without them these tests
// fail and say how to install them.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { parseStacktrace } from '../../connectors/exceptions/stacktrace-text.js';
import { runPages, type BrowserRun } from '../support/browsers.js';
import { childEnv, runCli, startProcess, type RunningProcess } from '../support/process.js';
import { tempDir } from '../support/service.js';
import {
  apiFor,
  appBuilds,
  appSites,
  buildFiles,
  expectFramesAt,
  expectUploaded,
  FIREFOX_CHAIN,
  firefoxFrames,
  framesOf,
  getEvent,
  jsEvent,
  postEvent,
  uploadJson,
  V8_CHAIN,
  type Api,
} from '../support/symbolication.js';

const RELEASE_1 = 'shop@1.0.0';
const RELEASE_2 = 'shop@1.1.0';

let dataDir: string;
let proc: RunningProcess;
let api: Api;
let chromium: BrowserRun;
let firefox: BrowserRun;

beforeAll(async () => {
  const builds = appBuilds();
  dataDir = tempDir('faultline-browsers-');
  // The service starts while the browsers run; it is kept (and stopped afterwards) even when a
  // browser fails.
  const started = startProcess(dataDir).then((running) => (proc = running));
  const release1 = join(builds.esbuild.dist, builds.esbuild.bundle);
  const release2 = join(builds.esbuildRelease2.dist, builds.esbuildRelease2.bundle);
  const runs = await Promise.allSettled([
    runPages('chromium', {
      // The same path in both releases, as a deployed app has; the query busts caches.
      release1: { scripts: [{ url: '/static/js/app.min.js?release=1', file: release1 }] },
      release2: { scripts: [{ url: '/static/js/app.min.js?release=2', file: release2 }] },
      shop: { scripts: [{ url: '/static/app.min.js?v=3', file: release1 }] },
    }),
    runPages('firefox', { release1: { scripts: [{ url: '/static/js/app.min.js?release=1', file: release1 }] } }),
    started,
  ]);
  const failed = runs.find((run) => run.status === 'rejected');
  if (failed) throw failed.reason;
  [chromium, firefox] = runs.map((run) => (run as PromiseFulfilledResult<BrowserRun>).value);
  api = apiFor(proc.baseUrl, proc.liveKey as string);
});

afterAll(async () => {
  if (proc) {
    proc.child.kill('SIGTERM');
    await proc.exited;
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function uploadWithCli(release: string, dist: string): Promise<void> {
  const { code, stdout, stderr } = await runCli(
    [
      'sourcemaps',
      'upload',
      '--project',
      'default',
      '--release',
      release,
      '--url-prefix',
      '~/static/js',
      '--url',
      proc.baseUrl,
      '--key',
      proc.liveKey as string,
      dist,
    ],
    childEnv(dataDir),
  );
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  expect(stdout).toContain('~/static/js/app.min.js');
}

describe('Done when: a minified esbuild app, uploaded with the CLI, throwing in Chromium', () => {
  let first: { id: string; issueId: string };
  let second: { id: string; issueId: string };
  let firstFrames: StackFrame[];
  let secondFrames: StackFrame[];

  beforeAll(async () => {
    const builds = appBuilds();
    await uploadWithCli(RELEASE_1, builds.esbuild.dist);
    await uploadWithCli(RELEASE_2, builds.esbuildRelease2.dist);
    firstFrames = framesOf(chromium.reports.release1);
    secondFrames = framesOf(chromium.reports.release2);
    first = await postEvent(api, jsEvent(chromium.reports.release1, RELEASE_1, {}, firstFrames));
    second = await postEvent(api, jsEvent(chromium.reports.release2, RELEASE_2, {}, secondFrames));
  });

  it('GET /v1/events/{id} shows the original file, line, column, function and source lines', async () => {
    expect(chromium.reports.release1.userAgent).toMatch(/HeadlessChrome\//);
    const event = await getEvent(api, first.id);
    expectFramesAt(event, appSites(V8_CHAIN));
    expect(event.exception.raw_stacktrace).toEqual(firstFrames);
    expect(event.processing_errors).toEqual([]);
    expect(event.culprit).toMatch(/^priceOf \(.*src\/money\.ts\)$/);
  });

  it('the same error from two releases with different bundles is one issue', async () => {
    // The bundles differ where the frames are: other minified names, other columns.
    const raw = (frames: StackFrame[]) => frames.filter((frame) => frame.lineno !== undefined).map((frame) => `${frame.function}@${frame.colno}`);
    expect(raw(secondFrames)).toHaveLength(raw(firstFrames).length);
    raw(secondFrames).forEach((frame, index) => expect(frame).not.toBe(raw(firstFrames)[index]));

    const event = await getEvent(api, second.id);
    expectFramesAt(event, appSites(V8_CHAIN));
    expect(event.exception.raw_stacktrace).toEqual(secondFrames);
    expect(second.issueId).toBe(first.issueId);
    expect(event.issue_id).toBe(first.issueId);

    const issue = await api(`/v1/issues/${first.issueId}`);
    expect(issue.status).toBe(200);
    expect(await issue.json()).toMatchObject({ count: 2, first_release: RELEASE_1, last_release: RELEASE_2, culprit: expect.stringMatching(/^priceOf /) });
  });
});

describe('other browsers and hosts', () => {
  it('Firefox: its `fn@url:line:col` frames (1-based columns, no async frames) resolve to the marked source', async () => {
    const report = firefox.reports.release1;
    expect(report.userAgent).toMatch(/Firefox\//);
    expect(report.stack).toMatch(/^i@http:\/\/127\.0\.0\.1:\d+\/static\/js\/app\.min\.js\?release=1:1:\d+$/m);
    await uploadWithCli('shop@1.0.0-firefox', appBuilds().esbuild.dist);
    const frames = firefoxFrames(report.stack);
    expect(frames.map((frame) => frame.function)).toEqual(['a', 'total', 'm', 'u', 'i']);
    const { id } = await postEvent(api, jsEvent(report, 'shop@1.0.0-firefox', {}, frames));
    const event = await getEvent(api, id);
    // SpiderMonkey prints the method as `total`; its enclosing scope names it `Cart.total`.
    expectFramesAt(event, appSites(FIREFOX_CHAIN));
    expect(event.exception.raw_stacktrace).toEqual(frames);
  });

  // src/records/stacktrace-text.ts (used by the exceptions connector for OTLP
  // `exception.stacktrace`) reads SpiderMonkey's `fn@url:line:col` the way the test support does.
  it('src/records/stacktrace-text.ts parses Firefox stack text', () => {
    const report = firefox.reports.release1;
    expect(parseStacktrace(report.stack, 'javascript')).toEqual(firefoxFrames(report.stack));
  });

  it('~/path matches across hosts: uploaded as ~/static/app.min.js, thrown from https://shop.example.com/static/app.min.js?v=3', async () => {
    const release = 'shop@1.2.0';
    const builds = appBuilds();
    await expectUploaded(uploadJson(api, { project_id: 'default', release }, buildFiles(builds.esbuild, '~/static/')));
    // Chromium loaded the bundle from the loopback server; the production host is put in its place.
    const stack = chromium.reports.shop.stack.split(chromium.origin).join('https://shop.example.com');
    expect(stack).toContain('(https://shop.example.com/static/app.min.js?v=3:1:');
    const report = { ...chromium.reports.shop, stack };
    const frames = framesOf(report);
    const { id } = await postEvent(api, jsEvent(report, release, {}, frames));
    const event = await getEvent(api, id);
    expectFramesAt(event, appSites(V8_CHAIN));
    expect(event.exception.raw_stacktrace).toEqual(frames);
  });
});
