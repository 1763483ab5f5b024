// End to end with the real sentry-cli binary (@sentry/cli from npm): a real esbuild build is
// uploaded the way a Sentry user does it — SENTRY_URL = the service, SENTRY_AUTH_TOKEN = a
// Faultline API key, SENTRY_ORG / SENTRY_PROJECT = the organization and project ids — once by
// debug id (`sentry-cli sourcemaps inject` + `sourcemaps upload`) and once release-based
// (`--release` + `--url-prefix`), and then an event from that build, run in Node, reads back
// symbolicated. `releases new` / `finalize` and `deploys new` (what the bundler plugins call)
// answer as sentry-cli expects.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { startService, tempDir, type TestService } from '../support/service.js';
import { expectError } from '../support/http.js';
import {
  appBuilds,
  appSites,
  debugImagesOf,
  expectFramesAt,
  framesOf,
  jsEvent,
  roundTrip,
  runInNode,
  servedFrom,
  V8_CHAIN,
  type AppReport,
} from '../support/symbolication.js';

const SENTRY_CLI = join(packageRoot, 'node_modules/.bin/sentry-cli');
let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs sentry-cli against the service, configured only through the environment a build sets. */
function sentryCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      SENTRY_CLI,
      args,
      {
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: tempDir('faultline-sentry-home-'),
          SENTRY_URL: svc.baseUrl,
          SENTRY_AUTH_TOKEN: svc.liveKey,
          SENTRY_ORG: 'default',
          SENTRY_PROJECT: 'default',
          SENTRY_DISABLE_UPDATE_CHECK: 'true',
          SENTRY_LOAD_DOTENV: '0',
          SENTRY_LOG_LEVEL: 'info',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function bundles(release: string): Promise<any[]> {
  const res = await svc.api(`/v1/sourcemaps?project_id=default&release=${encodeURIComponent(release)}`);
  expect(res.status).toBe(200);
  const list = ((await res.json()) as { data: Array<{ id: string }> }).data;
  return Promise.all(list.map(async (b) => (await svc.api(`/v1/sourcemaps/${b.id}`)).json()));
}

describe('sentry-cli sourcemaps upload against Faultline', () => {
  it('by debug id (inject, then upload without a release): an event of that build is symbolicated', async () => {
    const build = appBuilds().debugId;
    const run = await sentryCli(['sourcemaps', 'upload', build.dist]);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('File processing complete');
    expect(run.stdout).toContain(`debug id ${build.debugIdOf}`);

    const stored = await bundles('~debug-ids');
    const files = stored.flatMap((b) => b.files).filter((f: any) => f.debug_id === build.debugIdOf);
    expect(files.map((f: any) => [f.name, f.type]).sort()).toEqual([
      ['~/app.min.js', 'minified_source'],
      ['~/app.min.js.map', 'source_map'],
    ]);

    const report = await runInNode(build);
    const images = debugImagesOf(report);
    const event = await roundTrip(svc.api, jsEvent(report, 'shop@any', { debug_meta: { images } }));
    expectFramesAt(event, appSites(V8_CHAIN));
    expect(event.processing_errors).toEqual([]);
  });

  it('release-based (--release, --dist, --url-prefix): the files are stored under the release and match the frames’ URLs', async () => {
    const builds = appBuilds();
    // A copy without debug ids: only the release and the URL connect frames to the files.
    const dist = tempDir('faultline-sentry-build-');
    cpSync(builds.esbuild.dist, dist, { recursive: true });
    const release = 'shop@3.0.0';
    for (const args of [
      ['releases', 'new', release],
      ['sourcemaps', 'upload', '--release', release, '--dist', 'web', '--url-prefix', '~/static/js', dist],
      ['releases', 'finalize', release],
      ['deploys', 'new', '--release', release, '-e', 'production'],
    ]) {
      const run = await sentryCli(args);
      expect(run.code, `sentry-cli ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
    }
    const [bundle] = await bundles(release);
    expect(bundle).toMatchObject({ project_id: 'default', release, dist: 'web' });
    expect(bundle.files.map((f: any) => [f.name, f.type])).toEqual([
      ['~/static/js/app.min.js', 'minified_source'],
      ['~/static/js/app.min.js.map', 'source_map'],
    ]);

    const report: AppReport = servedFrom(await runInNode(builds.esbuild), builds.esbuild, 'https://shop.example.com/static/js/app.min.js');
    const frames = framesOf(report);
    const event = await roundTrip(svc.api, jsEvent(report, release, { dist: 'web' }, frames));
    expectFramesAt(event, appSites(V8_CHAIN));
    expect(event.exception.raw_stacktrace).toEqual(frames);

    // The same upload again: the chunks are known and the bundle is the same one.
    const again = await sentryCli(['sourcemaps', 'upload', '--release', release, '--dist', 'web', '--url-prefix', '~/static/js', dist]);
    expect(again.code, again.stderr).toBe(0);
    expect((await bundles(release)).map((b) => b.id)).toEqual([bundle.id]);
  });

  it('a bundle with a broken map (sent as sentry-cli sends it: a gzip chunk, then assemble) is refused with its reason; nothing is stored', async () => {
    const manifest = {
      files: { 'files/_/_/broken.js.map': { type: 'source_map', url: '~/static/js/broken.js.map', headers: {} } },
      release: 'shop@5.0.0',
    };
    const zip = Buffer.from(zipSync({ 'manifest.json': strToU8(JSON.stringify(manifest)), 'files/_/_/broken.js.map': strToU8('{"version": 3, "mappings": ') }));
    const sha1 = createHash('sha1').update(zip).digest('hex');
    const assemble = async () => {
      const res = await svc.api('/api/0/organizations/default/artifactbundle/assemble/', {
        method: 'POST',
        body: JSON.stringify({ checksum: sha1, chunks: [sha1], projects: ['default'], version: 'shop@5.0.0' }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { state: string; missingChunks: string[]; detail: string | null };
    };
    expect(await assemble()).toEqual({ state: 'not_found', missingChunks: [sha1], detail: null });
    const form = new FormData();
    form.append('file_gzip', new Blob([new Uint8Array(gzipSync(zip))]), sha1);
    const encoded = new Response(form);
    const upload = await svc.api('/api/0/organizations/default/chunk-upload/', {
      method: 'POST',
      headers: { 'content-type': encoded.headers.get('content-type') as string },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    expect(upload.status, await upload.clone().text()).toBe(200);
    const answer = await assemble();
    expect(answer.state).toBe('error');
    expect(answer.detail).toMatch(/~\/static\/js\/broken\.js\.map: not a valid source map/);
    expect(await bundles('shop@5.0.0')).toEqual([]);
  });

  it('refuses a wrong organization, a bad key, and chunks whose bytes do not hash to their name', async () => {
    const wrongOrg = await sentryCli(['sourcemaps', 'upload', appBuilds().debugId.dist], { SENTRY_ORG: 'acme' });
    expect(wrongOrg.code).not.toBe(0);
    await expectError(await svc.api('/api/0/organizations/acme/chunk-upload/'), 404, 'not_found');
    await expectError(await svc.api('/api/0/organizations/default/chunk-upload/', { key: 'fl_live_nope' }), 401, 'unauthorized');

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from('not what the name says'))]), 'a'.repeat(40));
    const encoded = new Response(form);
    const res = await svc.api('/api/0/organizations/default/chunk-upload/', {
      method: 'POST',
      headers: { 'content-type': encoded.headers.get('content-type') as string },
      body: Buffer.from(await encoded.arrayBuffer()),
    });
    await expectError(res, 400, 'bad_request');

    const assemble = await svc.api('/api/0/organizations/default/artifactbundle/assemble/', {
      method: 'POST',
      body: JSON.stringify({ checksum: 'b'.repeat(40), chunks: ['b'.repeat(40)], projects: ['default'] }),
    });
    expect(assemble.status).toBe(200);
    expect(await assemble.json()).toEqual({ state: 'not_found', missingChunks: ['b'.repeat(40)], detail: null });
    await expectError(
      await svc.api('/api/0/organizations/default/artifactbundle/assemble/', { method: 'POST', body: JSON.stringify({ checksum: 'nope', chunks: [] }) }),
      400,
      'validation_failed',
    );
  });
});
