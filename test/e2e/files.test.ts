// The data directory on disk: private modes, damaged files reported as damage (never as "in use",
// never as a crash), and first starts that fail before the keys could be seen.
import { randomBytes } from 'node:crypto';
import { openSync, readdirSync, readFileSync, rmSync, statSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParquetExporter } from '../../exporters/parquet/exporter.js';
import { packageRoot } from '../../src/paths.js';
import { childEnv, runCli, startProcess } from '../support/process.js';
import { fullEvent, startService, tempDir } from '../support/service.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function freshDir(): string {
  const dir = tempDir('faultline-files-');
  dirs.push(dir);
  return dir;
}

const mode = (path: string) => statSync(path).mode & 0o777;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? [path, ...walk(path)] : [path];
  });
}

describe('private data', () => {
  it('creates the data directory 0700 and every file in it 0600, the lake included', async () => {
    const dataDir = join(freshDir(), 'data');
    const yaml = readFileSync(join(packageRoot, 'config/examples/both.yaml'), 'utf8');
    const svc = await startService({ yaml, dataDir, keepData: true });
    try {
      expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) })).status).toBe(202);
      const span = {
        trace_id: randomBytes(16).toString('hex'),
        span_id: randomBytes(8).toString('hex'),
        name: 'op',
        start_time: Date.now(),
        end_time: Date.now() + 1,
      };
      expect((await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: [span] }) })).status).toBe(202);
      await (svc.service.exporter('parquet') as ParquetExporter).flushNow();
      expect(mode(dataDir)).toBe(0o700);
      const entries = walk(dataDir);
      expect(entries.some((p) => p.endsWith('.parquet'))).toBe(true);
      expect(entries.some((p) => p.endsWith('data.mdb'))).toBe(true);
      for (const path of entries) {
        if (statSync(path).isDirectory()) expect(mode(path), path).toBe(0o700);
        else expect(mode(path) & 0o077, path).toBe(0); // nothing for group or others (the socket is 0600 too)
      }
    } finally {
      await svc.stop();
    }
  });
});

describe('damaged files', () => {
  it('reports a damaged DuckDB file as damage with a way out, for start and the CLI', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'faultline.duckdb'), randomBytes(300_000));
    for (const args of [['start'], ['keys', 'list']]) {
      const run = await runCli(args, childEnv(dir));
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toMatch(/faultline\.duckdb is damaged/);
      expect(run.stderr).toMatch(/backup|move it aside/);
      expect(run.stderr).not.toMatch(/in use/);
    }
  });

  it.each([
    ['its header', 0],
    ['its pages', 2],
  ])('reports a damaged document store (%s) and exits 1 instead of crashing', async (_what, fromPage) => {
    const first = await startService({ keepData: true });
    dirs.push(first.dataDir);
    for (let i = 0; i < 50; i++) expect((await first.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) })).status).toBe(202);
    await first.stop();
    const file = join(first.dataDir, 'docs', 'data.mdb');
    const fd = openSync(file, 'r+');
    const size = statSync(file).size;
    writeSync(fd, randomBytes(size - fromPage * 4096), 0, size - fromPage * 4096, fromPage * 4096);
    closeSync(fd);

    const run = await runCli(['start'], childEnv(first.dataDir));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/data\.mdb is damaged/);
    // Exit code 1, not a signal: the service itself did not crash (a probe child may have, and the
    // message may name its signal), and no stack trace leaks out.
    expect(run.stderr).not.toMatch(/Segmentation fault|^\s+at /m);
    // The catalog is elsewhere: the CLI still manages keys.
    expect((await runCli(['keys', 'list'], childEnv(first.dataDir))).code).toBe(0);
  });
});

describe('first start', () => {
  let blocker: Server | undefined;
  afterAll(() => blocker?.close());

  it('shows the keys on the next start when the first one failed on a port in use', async () => {
    blocker = createServer();
    const port = await new Promise<number>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve((blocker!.address() as { port: number }).port)));
    const dir = freshDir();
    const failed = await runCli(['start'], childEnv(dir, { FAULTLINE_HTTP_PORT: String(port) }));
    expect(failed.code).toBe(1);
    expect(failed.stdout).not.toMatch(/live key/);

    const second = await startProcess(dir);
    expect(second.liveKey).toMatch(/^fl_live_/);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
