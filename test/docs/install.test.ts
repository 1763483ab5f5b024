// What a fresh clone needs: every dependency's install script is reviewed in package.json
// (`allowScripts`: an npm that blocks unreviewed scripts installs the same working tree), the
// prebuilt native parts load without their scripts, and `npx faultline` — the form the docs use —
// runs the package's own command.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

describe('installing', () => {
  it('every install script of the dependencies is approved or denied in package.json', { timeout: 120_000 }, async () => {
    const { stdout } = await run('npm', ['install-scripts', 'ls'], { cwd: packageRoot, timeout: 60_000 });
    expect(stdout).toMatch(/No packages with unreviewed install scripts/);
    // lmdb builds from source where no prebuilt binary fits; the others' scripts only fetch or
    // check what their platform packages (optionalDependencies) already hold.
    expect(pkg.allowScripts).toEqual({ lmdb: true, '@sentry/cli': false, esbuild: false, 'msgpackr-extract': false });
  });

  it('the native parts work from their prebuilt packages, without install scripts', { timeout: 120_000 }, async () => {
    const check = `
      const { open } = await import('lmdb');
      const db = open({ path: process.argv[1] });
      await db.put('k', { v: 1 });
      const extract = (await import('msgpackr-extract')).default;
      const esbuild = await import('esbuild');
      const built = await esbuild.transform('let a: number = 1', { loader: 'ts' });
      console.log(JSON.stringify({ lmdb: db.get('k'), extract: typeof extract.extractStrings, esbuild: built.code.trim() }));
      await db.close();`;
    const dir = mkdtempSync(join(tmpdir(), 'faultline-lmdb-'));
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', check, dir], { cwd: packageRoot, timeout: 60_000 }).finally(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
    expect(JSON.parse(stdout)).toEqual({ lmdb: { v: 1 }, extract: 'function', esbuild: 'let a = 1;' });
    const cli = await run(process.execPath, [join(packageRoot, 'node_modules/@sentry/cli/bin/sentry-cli'), '--version'], { timeout: 60_000 });
    expect(cli.stdout).toMatch(/^sentry-cli \d+\.\d+\.\d+/);
  });

  it('`npx faultline` runs the package command; `npm install` builds dist/ through prepare', async () => {
    expect(pkg.bin.faultline).toBe('bin/faultline.js');
    expect(pkg.scripts.prepare).toMatch(/^tsc -p tsconfig\.json && node scripts\/build-web\.mjs$/);
    const { stdout } = await run('npx', ['--no-install', 'faultline', 'validate'], { cwd: packageRoot, timeout: 120_000 });
    expect(stdout).toMatch(/config\/default\.yaml: valid, \d+ pipeline/);
  }, 120_000);
});
