// End to end: `faultline sourcemaps upload` walking a build folder and uploading it to the service
// running as its own process.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, runCli, startProcess, type RunningProcess } from '../support/process.js';
import { tempDir } from '../support/service.js';

const DEBUG_ID = '5b1f6a3c-8d2e-4f70-9a1b-2c3d4e5f6a7b';
/** A build folder, as `sentry-cli sourcemaps inject` leaves it: the debug id in the .js and in its .map. */
const BUILD: Record<string, string> = {
  'static/js/app.min.js': `boot();\n//# debugId=${DEBUG_ID}\n//# sourceMappingURL=app.min.js.map\n`,
  'static/js/app.min.js.map': JSON.stringify({ version: 3, sources: ['src/app.ts'], names: [], mappings: 'AAAA', debugId: DEBUG_ID }),
  'static/js/chunk.mjs': 'export const x = 1;\n',
  'static/js/app.min.js.LICENSE.txt': '/*! MIT licensed */\n',
  'android/mapping.txt': 'com.example.Main -> a.a:\n    void run() -> a\n',
  'native/libapp.so.sym': 'MODULE Linux x86_64 3249D99D0C4049318610F4E4FB0B69361 libapp.so\nFUNC 1000 30 0 crash\n',
  'index.html': '<script src="/static/js/app.min.js"></script>',
};
const size = (path: string) => String(Buffer.byteLength(BUILD[path]));
let dataDir: string;
let buildDir: string;
let proc: RunningProcess;

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

beforeAll(async () => {
  dataDir = tempDir();
  buildDir = tempDir('faultline-build-');
  for (const [path, content] of Object.entries(BUILD)) write(buildDir, path, content);
  proc = await startProcess(dataDir);
});

afterAll(async () => {
  proc?.child.kill('SIGTERM');
  await proc?.exited;
  for (const dir of [dataDir, buildDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('faultline sourcemaps upload', () => {
  it('walks the folder, uploads every artifact as one bundle named <url-prefix>/<path>, and prints what it uploaded', async () => {
    const env = { ...childEnv(dataDir), FAULTLINE_KEY: proc.liveKey as string };
    const run = await runCli(['sourcemaps', 'upload', '--project', 'default', '--release', 'web@1.2.3', '--dist', 'b7', '--url', proc.baseUrl, buildDir], env);
    expect(run.code, run.stderr).toBe(0);
    const id = /Uploaded 5 files to bundle (\S+) \(project default, release web@1\.2\.3, dist b7\)/.exec(run.stdout)?.[1];
    expect(id, run.stdout).toBeDefined();
    const lines = run.stdout.trim().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['name', 'type', 'size', 'debug_id']);
    expect(lines.slice(1, -1).map((line) => line.split(/\s+/))).toEqual([
      ['~/android/mapping.txt', 'proguard', size('android/mapping.txt'), expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/)],
      ['~/native/libapp.so.sym', 'breakpad', size('native/libapp.so.sym'), '3249d99d0c4049318610f4e4fb0b69361'],
      ['~/static/js/app.min.js', 'minified_source', size('static/js/app.min.js'), DEBUG_ID],
      ['~/static/js/app.min.js.map', 'source_map', size('static/js/app.min.js.map'), DEBUG_ID],
      ['~/static/js/chunk.mjs', 'minified_source', size('static/js/chunk.mjs'), '-'],
    ]);
    expect(run.stderr).toContain('skipped static/js/app.min.js.LICENSE.txt: a .txt file that is not a ProGuard mapping');

    const res = await fetch(`${proc.baseUrl}/v1/sourcemaps/${id}`, { headers: { authorization: `Bearer ${proc.liveKey}` } });
    const bundle = (await res.json()) as Record<string, any>;
    expect(bundle).toMatchObject({ id, project_id: 'default', release: 'web@1.2.3', dist: 'b7' });
    expect(bundle.files.map((f: any) => f.name)).toEqual(lines.slice(1, -1).map((line) => line.split(/\s+/)[0]));
  });

  it('takes the URL from the configuration and a --url-prefix, and exits 1 with the error body on failure', async () => {
    const env = { ...childEnv(dataDir, { FAULTLINE_HTTP_PORT: String(proc.port) }), FAULTLINE_KEY: proc.liveKey as string };
    const js = join(buildDir, 'static/js');
    const ok = await runCli(['sourcemaps', 'upload', '--project', 'default', '--release', 'web@2', '--url-prefix', '~/assets/', js], env);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('~/assets/app.min.js.map');

    const broken = tempDir('faultline-broken-');
    try {
      write(broken, 'good.js', 'x()');
      write(broken, 'bad.js.map', JSON.stringify({ version: 2, sources: [], mappings: '' }));
      const failed = await runCli(['sourcemaps', 'upload', '--project', 'default', '--release', 'web@3', broken], env);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('upload failed (400): the upload is invalid; nothing of it was stored');
      expect(failed.stderr).toContain('~/bad.js.map (files[0].content): not a valid source map: version must be 3, got 2');
      const list = (await (
        await fetch(`${proc.baseUrl}/v1/sourcemaps?project_id=default&release=web@3`, { headers: { authorization: `Bearer ${proc.liveKey}` } })
      ).json()) as {
        data: unknown[];
      };
      expect(list.data).toEqual([]);

      const noKey = await runCli(['sourcemaps', 'upload', '--project', 'default', '--release', 'web@3', broken], childEnv(dataDir));
      expect(noKey.code).toBe(1);
      expect(noKey.stderr).toContain('give an API key with --key or FAULTLINE_KEY');
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
