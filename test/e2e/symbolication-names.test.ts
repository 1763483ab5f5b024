// Scope-based function names, end to end (issue 29): the naming-rules app (test/fixtures/names) is
// built with esbuild (minified and not), terser, rollup, webpack and tsc
// (test/support/name-builds.ts), run in Node, headless Chromium and Firefox, and its real stacks go
// to POST /v1/events after each build went to POST /v1/sourcemaps. Every frame must carry the
// original name of its enclosing function, by the rule its marker names: `start` (a function),
// `new Order` (a constructor — esbuild renamed the class `_Order`), `Order.check` (a method),
// `hooks.validate` (assigned to a property), `retry.attempts` (an object literal's method), no
// name (an anonymous callback), `cartWithNegativePrice` (an arrow assigned to a const), `priceOf`.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../src/records/event.js';
import { markedSites, sitesOf, type SourceSite } from '../support/app-source.js';
import { runPages, type BrowserName } from '../support/browsers.js';
import { makeNameBuilds, NAMES_DIR, type NameBuild, type NameBuildTool } from '../support/name-builds.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import {
  expectUploaded,
  firefoxFrames,
  framesOf,
  jsEvent,
  roundTrip,
  runInNode,
  uploadJson,
  type AppReport,
  type UploadFile,
} from '../support/symbolication.js';
import { readFileSync } from 'node:fs';

/** The call chain, oldest first, by the names the markers give (test/fixtures/names/src). */
const CHAIN = ['start', 'new Order', 'Order.check', 'hooks.validate', 'retry.attempts', '<anonymous>', 'cartWithNegativePrice', 'priceOf'];
const SITES: SourceSite[] = sitesOf(markedSites(NAMES_DIR, ['.ts']), CHAIN);
const HOST = 'https://shop.example.com';

type Runtime = 'node' | BrowserName;

let svc: TestService;
let dir: string;
let builds: NameBuild[];
const reports = new Map<string, AppReport>();

beforeAll(async () => {
  dir = tempDir('faultline-name-builds-');
  [builds, svc] = await Promise.all([makeNameBuilds(dir), startService()]);
  const pages = Object.fromEntries(
    builds.filter((b) => b.browser).map((b) => [b.tool, { scripts: [{ url: `/static/${b.tool}/${b.entry}`, file: join(b.dist, b.entry) }] }]),
  );
  const [node, chromium, firefox] = await Promise.all([
    Promise.all(builds.map((b) => runInNode({ root: b.dist, dist: b.dist, bundle: b.entry, map: `${b.entry}.map` }))),
    runPages('chromium', pages),
    runPages('firefox', pages),
  ]);
  builds.forEach((b, i) => {
    // As if served from HOST/static/<tool>/: the build folder's path becomes the URL.
    reports.set(`node ${b.tool}`, { ...node[i], stack: node[i].stack.split(`${b.dist}/`).join(`${HOST}/static/${b.tool}/`) });
    if (b.browser) {
      reports.set(`chromium ${b.tool}`, chromium.reports[b.tool]);
      reports.set(`firefox ${b.tool}`, firefox.reports[b.tool]);
    }
  });
  for (const b of builds) {
    const files: UploadFile[] = readdirSync(b.dist)
      .filter((file) => file.endsWith('.js') || file.endsWith('.js.map'))
      .map((file) => ({ name: `~/static/${b.tool}/${file}`, content: readFileSync(join(b.dist, file)) }));
    await expectUploaded(uploadJson(svc.api, { project_id: 'default', release: `names@${b.tool}` }, files));
  }
}, 180_000);

afterAll(async () => {
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function framesFrom(runtime: Runtime, report: AppReport): StackFrame[] {
  return runtime === 'firefox' ? firefoxFrames(report.stack) : framesOf(report);
}

/** The frames at the marked sites, oldest first, as `<function> <file>:<line>` (`<anonymous>`: no function). */
function namedSites(event: Record<string, any>): string[] {
  const marked = new Set(SITES.map((site) => `${site.file}:${site.line}`));
  return (event.exception.stacktrace as StackFrame[])
    .filter((frame) => marked.has(`${frame.filename}:${frame.lineno}`))
    .map((frame) => `${frame.function ?? '<anonymous>'} ${frame.filename}:${frame.lineno}`);
}

const EXPECTED = SITES.map((site) => `${site.function} ${site.file}:${site.line}`);
const TOOLS: NameBuildTool[] = ['esbuild-min', 'esbuild', 'terser', 'rollup', 'webpack', 'tsc'];

describe.each(['node', 'chromium', 'firefox'] as Runtime[])('%s stacks', (runtime) => {
  it.each(TOOLS.filter((tool) => runtime === 'node' || tool !== 'tsc'))(
    '%s: every frame is named by its enclosing function in the original source',
    async (tool) => {
      const report = reports.get(`${runtime} ${tool}`);
      expect(report, `no report from ${runtime} for ${tool}`).toBeDefined();
      const frames = framesFrom(runtime, report as AppReport);
      const event = await roundTrip(svc.api, jsEvent(report as AppReport, `names@${tool}`, {}, frames));
      expect(namedSites(event), `${report?.stack}\n${JSON.stringify(event.processing_errors)}`).toEqual(EXPECTED);
      expect(event.exception.raw_stacktrace).toEqual(frames);
    },
  );
});
