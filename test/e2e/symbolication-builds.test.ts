// End to end, with real builds (issue #11): the fixture app (test/fixtures/app) is built with
// esbuild, terser, an index map and sentry-cli's debug ids (test/support/app-builds.ts), run
// with Node, and its real V8 stack goes to POST /v1/events after the build went to
// POST /v1/sourcemaps. Every symbolicated frame must land on the position marked in the source.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';
import { expectError } from '../support/http.js';
import {
  appBuilds,
  appSites,
  buildFiles,
  debugImagesOf,
  expectFramesAt,
  expectUnsymbolicated,
  expectUploaded,
  framesOf,
  getEvent,
  jsEvent,
  postEvent,
  roundTrip,
  runInNode,
  servedFrom,
  uploadJson,
  uploadMultipart,
  V8_CHAIN,
  type AppReport,
} from '../support/symbolication.js';
import type { AppBuilds } from '../support/app-builds.js';

let svc: TestService;
let builds: AppBuilds;
const reports: Partial<Record<keyof AppBuilds, AppReport>> = {};

beforeAll(async () => {
  builds = appBuilds();
  svc = await startService();
  const names = Object.keys(builds) as Array<keyof AppBuilds>;
  const runs = await Promise.all(names.map((name) => runInNode(builds[name])));
  names.forEach((name, index) => (reports[name] = runs[index]));
});

afterAll(async () => {
  await svc?.stop();
});

const PROJECT = 'default';
const V8_SITES = () => appSites(V8_CHAIN);
/** Where the esbuild bundle is served from in the tests that need a browser-like frame URL. */
const SHOP_URL = 'https://shop.example.com/static/js/app.min.js';

function report(name: keyof AppBuilds): AppReport {
  const found = reports[name];
  if (!found) throw new Error(`no report from ${name}`);
  return found;
}

/**
 * The esbuild build's Node report as if a browser had loaded the bundle from SHOP_URL: the same
 * V8 positions (symbolication-browsers.test.ts shows Chromium prints them), with an http(s) URL,
 * whose frames report `missing_source_map` when no map is found.
 */
function served(): AppReport {
  return servedFrom(report('esbuild'), builds.esbuild, SHOP_URL);
}

describe('JavaScript builds, V8 stacks from Node', () => {
  it('esbuild: a minified bundle and its map (JSON upload, matched by file name) give the original frames', async () => {
    const release = 'shop@1.0.0';
    const bundle = await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild)));
    expect(bundle).toMatchObject({ project_id: PROJECT, release, dist: null });
    expect(bundle.files.map((file) => [file.name, file.type])).toEqual([
      ['app.min.js', 'minified_source'],
      ['app.min.js.map', 'source_map'],
    ]);
    for (const file of bundle.files) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);

    const frames = framesOf(report('esbuild'));
    const event = await roundTrip(svc.api, jsEvent(report('esbuild'), release, {}, frames));
    expectFramesAt(event, V8_SITES());
    // The frames as received are kept beside the symbolicated ones.
    expect(event.exception.raw_stacktrace).toEqual(frames);
    expect(event.exception).toMatchObject({ type: 'RangeError', value: 'no price for mug' });
    expect(event.processing_errors).toEqual([]);
    // Grouping ran on the symbolicated frames: the culprit is the original function.
    expect(event.culprit).toMatch(/^priceOf \(.*src\/money\.ts\)$/);
    expect(event.root_cause.frame).toMatchObject({ function: 'priceOf', lineno: 8 });
  });

  it('terser over an esbuild bundle, the two maps chained (multipart upload)', async () => {
    const release = 'shop@1.0.0-terser';
    const bundle = await expectUploaded(uploadMultipart(svc.api, { project_id: PROJECT, release }, buildFiles(builds.terser)));
    expect(bundle.files.map((file) => file.type).sort()).toEqual(['minified_source', 'source_map']);

    const frames = framesOf(report('terser'));
    const event = await roundTrip(svc.api, jsEvent(report('terser'), release, {}, frames));
    expectFramesAt(event, V8_SITES(), {
      // terser writes no mapping for an `await` (lib/output.js maps a fixed list of node types,
      // AST_Await not among them): V8's position of an async frame, its `await`, falls back to
      // the previous mapping, the end of the statement before. Only the file is asserted.
      positionNotMapped: { run: 'terser maps no await' },
    });
    expect(event.exception.raw_stacktrace).toEqual(frames);
  });

  it('an index map (sections): the app is the second section, on the bundle’s second line', async () => {
    const release = 'shop@1.0.0-index';
    const bundle = await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.indexMap)));
    expect(bundle.files.find((file) => file.name === 'bundle.min.js.map')?.type).toBe('source_map');

    const frames = framesOf(report('indexMap'));
    expect(frames.filter((frame) => frame.lineno !== undefined).every((frame) => frame.lineno === 2)).toBe(true);
    const event = await roundTrip(svc.api, jsEvent(report('indexMap'), release, {}, frames));
    expectFramesAt(event, V8_SITES());
  });

  it('debug ids (sentry-cli sourcemaps inject): matched by id although the uploaded names differ from the frames’ file', async () => {
    const release = 'shop@1.0.0-debug-id';
    const { debugIdOf } = builds.debugId;
    // Named as nothing in the stack is: only the debug id can connect them.
    const bundle = await expectUploaded(
      uploadJson(svc.api, { project_id: PROJECT, release }, [
        { name: '~/assets/storefront.3f9a2c.js', content: buildFiles(builds.debugId)[0].content },
        { name: '~/assets/storefront.3f9a2c.js.map', content: buildFiles(builds.debugId)[1].content },
      ]),
    );
    expect(bundle.files.map((file) => [file.type, file.debug_id])).toEqual([
      ['minified_source', debugIdOf],
      ['source_map', debugIdOf],
    ]);

    const debugReport = report('debugId');
    const images = debugImagesOf(debugReport);
    expect(images).toEqual([{ type: 'sourcemap', code_file: expect.stringMatching(/\/debug-id\/dist\/app\.min\.js$/), debug_id: debugIdOf }]);
    const frames = framesOf(debugReport);
    // The injected snippet put two lines before the app: the frames are on line 3.
    expect(frames.find((frame) => frame.function === 'i')?.lineno).toBe(3);
    const event = await roundTrip(svc.api, jsEvent(debugReport, release, { debug_meta: { images } }, frames));
    expectFramesAt(event, V8_SITES());
    expect(event.debug_meta).toEqual({ images });

    // Without the debug id nothing connects the frames to the upload; the release has uploads,
    // so each frame of the built file says why it stayed raw (symbolication-why-raw.test.ts).
    const without = await roundTrip(svc.api, jsEvent(debugReport, release, {}, frames));
    expectUnsymbolicated(without, frames, 'missing_source_map');
    expect(without.processing_errors).toHaveLength(frames.filter((frame) => frame.abs_path?.endsWith('/debug-id/dist/app.min.js')).length);
  });

  it("a Node bundle without debug ids, uploaded with the default --url-prefix '~': its absolute paths match by ~/ suffix", async () => {
    const release = 'server@1.0.0';
    // The names `faultline sourcemaps upload --url-prefix '~' dist` gives the build's files.
    await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild, '~/')));
    const frames = framesOf(report('esbuild'));
    expect(frames.filter((frame) => frame.abs_path?.endsWith('/dist/app.min.js')).every((frame) => frame.abs_path?.startsWith('/'))).toBe(true);
    const event = await roundTrip(svc.api, jsEvent(report('esbuild'), release, {}, frames));
    expectFramesAt(event, V8_SITES());
    expect(event.processing_errors).toEqual([]);
    // Sentry's Node SDK with rewriteFrames: app:///dist/app.min.js.
    const rewritten = servedFrom(report('esbuild'), builds.esbuild, 'app:///dist/app.min.js');
    expectFramesAt(await roundTrip(svc.api, jsEvent(rewritten, release)), V8_SITES());
  });

  it('a frame left raw in a release with uploads says what was looked for', async () => {
    const release = 'server@1.0.1';
    await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild, '~/other/')));
    const frames = framesOf(report('esbuild'));
    const event = await roundTrip(svc.api, jsEvent(report('esbuild'), release, {}, frames));
    expectUnsymbolicated(event, frames, 'missing_source_map');
    const bundlePath = frames.find((frame) => frame.abs_path?.endsWith('/dist/app.min.js'))?.abs_path as string;
    const note = (event.processing_errors as Array<{ type: string; message: string }>).find((entry) => entry.message.includes(bundlePath));
    expect(note?.message).toMatch(/^no source map for \/.*\/dist\/app\.min\.js; tried .*~\/dist\/app\.min\.js, ~\/app\.min\.js, app\.min\.js/);
  });
});

describe('which uploads an event may use', () => {
  it('a map uploaded for another release is not used: browser frames get missing_source_map, files on disk stay quiet', async () => {
    await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release: 'shop@0.9.0' }, buildFiles(builds.esbuild)));
    const fromShop = served();
    const urlFrames = framesOf(fromShop);
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(fromShop, 'shop@0.9.1', {}, urlFrames)), urlFrames, 'missing_source_map');
    const diskFrames = framesOf(report('esbuild'));
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(report('esbuild'), 'shop@0.9.1', {}, diskFrames)), diskFrames, null);
    // The release it was uploaded for uses it.
    expectFramesAt(await roundTrip(svc.api, jsEvent(fromShop, 'shop@0.9.0', {}, urlFrames)), V8_SITES());
  });

  it('a map uploaded for another dist of the release is not used; the event of that dist uses it', async () => {
    const release = 'shop@0.9.2';
    const bundle = await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release, dist: 'modern' }, buildFiles(builds.esbuild)));
    expect(bundle.dist).toBe('modern');
    const frames = framesOf(served());
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(served(), release, { dist: 'legacy' }, frames)), frames, 'missing_source_map');
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(served(), release, {}, frames)), frames, 'missing_source_map');
    expectFramesAt(await roundTrip(svc.api, jsEvent(served(), release, { dist: 'modern' }, frames)), V8_SITES());
  });

  it('a missing map: the minified file alone resolves nothing, every bundle frame is kept and noted', async () => {
    const release = 'shop@0.9.3';
    await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild).slice(0, 1)));
    const frames = framesOf(report('esbuild'));
    const event = await roundTrip(svc.api, jsEvent(report('esbuild'), release, {}, frames));
    expectUnsymbolicated(event, frames, 'missing_source_map');
    const missing = (event.processing_errors as Array<{ type: string }>).filter((error) => error.type === 'missing_source_map');
    expect(missing.length).toBeGreaterThan(0);
  });

  it('a malformed upload is a 400 and stores nothing, not even its valid files', async () => {
    const release = 'shop@0.9.4';
    const [minified] = buildFiles(builds.esbuild);
    const body = await expectError(
      await uploadJson(svc.api, { project_id: PROJECT, release }, [minified, { name: 'app.min.js.map', content: '{"version": 3, "mappings": ' }]),
      400,
      'validation_failed',
    );
    expect(body.error.details.length).toBeGreaterThan(0);
    await expectError(await uploadJson(svc.api, { project_id: PROJECT, release }, []), 400, 'validation_failed');
    await expectError(
      await svc.api('/v1/sourcemaps', { method: 'POST', body: JSON.stringify({ project_id: PROJECT, release, files: [{ name: 'x.js' }] }) }),
      400,
      'validation_failed',
    );

    const listed = await svc.api(`/v1/sourcemaps?project_id=${PROJECT}&release=${encodeURIComponent(release)}`);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
    // The same valid map under that release would symbolicate; the refused upload left nothing.
    const frames = framesOf(served());
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(served(), release, {}, frames)), frames, 'missing_source_map');
  });

  it('uploading the same build twice is idempotent: same files, and events resolve as before', async () => {
    const release = 'shop@0.9.5';
    const first = await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild)));
    const second = await expectUploaded(uploadMultipart(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild)));
    const strip = (files: typeof first.files) => files.map(({ name, type, size, sha256, debug_id }) => ({ name, type, size, sha256, debug_id }));
    expect(strip(second.files)).toEqual(strip(first.files));
    expect(second.id).toBe(first.id);
    expectFramesAt(await roundTrip(svc.api, jsEvent(report('esbuild'), release)), V8_SITES());
  });

  it('GET and DELETE /v1/sourcemaps/{id}: after the delete, new events get missing_source_map; stored ones keep their frames', async () => {
    const release = 'shop@0.9.6';
    const bundle = await expectUploaded(uploadJson(svc.api, { project_id: PROJECT, release }, buildFiles(builds.esbuild)));
    const read = await svc.api(`/v1/sourcemaps/${bundle.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: bundle.id, project_id: PROJECT, release, files: bundle.files });

    const before = await postEvent(svc.api, jsEvent(served(), release));
    expectFramesAt(await getEvent(svc.api, before.id), V8_SITES());

    const deleted = await svc.api(`/v1/sourcemaps/${bundle.id}`, { method: 'DELETE' });
    expect(deleted.status, await deleted.text()).toBe(204);
    await expectError(await svc.api(`/v1/sourcemaps/${bundle.id}`), 404, 'not_found');
    await expectError(await svc.api(`/v1/sourcemaps/${bundle.id}`, { method: 'DELETE' }), 404, 'not_found');

    const frames = framesOf(served());
    expectUnsymbolicated(await roundTrip(svc.api, jsEvent(served(), release, {}, frames)), frames, 'missing_source_map');
    // Symbolication happened at ingest: the event stored before the delete is unchanged.
    expectFramesAt(await getEvent(svc.api, before.id), V8_SITES());
  });
});
