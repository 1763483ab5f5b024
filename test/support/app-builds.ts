// Real builds of the fixture app (test/fixtures/app), made once per test run by the global setup
// (test/support/app-builds.setup.ts) in a temporary directory: what the symbolication end-to-end
// tests upload and run. Every build copies the app's sources next to its output, so the source
// maps name them `../src/<module>.ts` as a project's own build would.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { minify } from 'terser';
import { packageRoot } from '../../src/paths.js';

export const APP_DIR = join(packageRoot, 'test/fixtures/app');

/** One build: the folder a user would upload (`dist`), and its bundle and map within it. */
export interface AppBuild {
  /** The build's root: `src/` (the sources it was built from) and `dist/`. */
  root: string;
  /** The folder holding the bundle and its map (what `faultline sourcemaps upload` is given). */
  dist: string;
  /** The bundle's file name in `dist`. */
  bundle: string;
  /** The map's file name in `dist`. */
  map: string;
}

export interface AppBuilds {
  /** esbuild, minified, with a source map. Release 1 of the app. */
  esbuild: AppBuild;
  /** The same build after a change to an unrelated module (variants/banner.ts): release 2. */
  esbuildRelease2: AppBuild;
  /** esbuild without minification, then terser with the esbuild map chained in. */
  terser: AppBuild;
  /** A vendor bundle and the app bundle concatenated, with an index map (`sections`). */
  indexMap: AppBuild;
  /** The esbuild build after `sentry-cli sourcemaps inject`: a `//# debugId=` comment and `debugId` in the map. */
  debugId: AppBuild & { debugIdOf: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    appBuilds: AppBuilds;
  }
}

const TARGET = 'es2022';

/** Copies the app's sources to `<root>/src`, with `overrides` (file name -> fixture path) replacing some. */
function copySources(root: string, overrides: Record<string, string> = {}): void {
  cpSync(join(APP_DIR, 'src'), join(root, 'src'), { recursive: true });
  for (const [name, from] of Object.entries(overrides)) cpSync(join(APP_DIR, from), join(root, 'src', name));
}

/** esbuild: `<root>/<entry>` bundled (an IIFE with a source map) into `<root>/<outfile>`. */
export async function esbuildApp(root: string, minified: boolean, outfile: string, entry = 'src/main.ts', target = TARGET): Promise<void> {
  await build({
    entryPoints: [join(root, entry)],
    outfile: join(root, outfile),
    bundle: true,
    minify: minified,
    sourcemap: true,
    format: 'iife',
    target,
    platform: 'neutral',
    logLevel: 'silent',
  });
}

async function buildEsbuild(root: string, overrides: Record<string, string> = {}): Promise<AppBuild> {
  copySources(root, overrides);
  await esbuildApp(root, true, 'dist/app.min.js');
  return { root, dist: join(root, 'dist'), bundle: 'app.min.js', map: 'app.min.js.map' };
}

/**
 * esbuild bundles without minifying; terser minifies that bundle and chains esbuild's map
 * (`sourceMap.content`), so the final map points at the TypeScript sources. Terser's default
 * `compress` merges single-use functions into their callers (`inline`, `reduce_funcs`), which
 * removes those functions' frames from every stack trace: no symbolicator can bring them back,
 * and this app's functions are all single-use. Both are off so the stack the runtime prints is
 * the stack the source shows; everything else is terser's default minification and mangling.
 */
async function buildTerser(root: string): Promise<AppBuild> {
  copySources(root);
  await esbuildApp(root, false, 'intermediate/app.js');
  const code = readFileSync(join(root, 'intermediate/app.js'), 'utf8');
  const inputMap = readFileSync(join(root, 'intermediate/app.js.map'), 'utf8');
  const out = await minify(
    { 'app.js': code },
    {
      ecma: 2020,
      compress: { inline: false, reduce_funcs: false },
      sourceMap: { content: inputMap, filename: 'app.min.js', url: 'app.min.js.map' },
    },
  );
  if (out.code === undefined || typeof out.map !== 'string') throw new Error('terser produced no code or no map');
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/app.min.js'), out.code);
  writeFileSync(join(root, 'dist/app.min.js.map'), out.map);
  return { root, dist: join(root, 'dist'), bundle: 'app.min.js', map: 'app.min.js.map' };
}

/** A source map (v3) as read from disk. */
export interface SourceMapV3 {
  version: 3;
  file?: string;
  sources: string[];
  sourcesContent?: Array<string | null>;
  names: string[];
  mappings: string;
  sourceRoot?: string;
  debugId?: string;
}

/**
 * esbuild never writes index maps, so this one is composed from two real maps: a vendor bundle
 * and the app bundle, each minified to one line, concatenated on two lines into one file; the
 * index map's `sections` put the vendor map at line 0 and the app map at line 1 (0-based), as a
 * concatenating tool does.
 */
async function buildIndexMap(root: string): Promise<AppBuild> {
  copySources(root);
  await esbuildApp(root, true, 'parts/vendor.min.js', 'src/vendor.ts');
  await esbuildApp(root, true, 'parts/app.min.js');
  const strip = (code: string) => code.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '');
  const vendor = strip(readFileSync(join(root, 'parts/vendor.min.js'), 'utf8'));
  const app = strip(readFileSync(join(root, 'parts/app.min.js'), 'utf8'));
  if (vendor.includes('\n') || app.includes('\n')) throw new Error('expected one-line minified bundles');
  const readMap = (name: string) => JSON.parse(readFileSync(join(root, 'parts', name), 'utf8')) as SourceMapV3;
  // The maps name their sources relative to parts/; the bundle lives in dist/, next to parts/.
  const indexMap = {
    version: 3,
    file: 'bundle.min.js',
    sections: [
      { offset: { line: 0, column: 0 }, map: readMap('vendor.min.js.map') },
      { offset: { line: 1, column: 0 }, map: readMap('app.min.js.map') },
    ],
  };
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/bundle.min.js'), `${vendor}\n${app}\n//# sourceMappingURL=bundle.min.js.map\n`);
  writeFileSync(join(root, 'dist/bundle.min.js.map'), JSON.stringify(indexMap));
  return { root, dist: join(root, 'dist'), bundle: 'bundle.min.js', map: 'bundle.min.js.map' };
}

const execFileAsync = promisify(execFile);

/** The esbuild build, then `sentry-cli sourcemaps inject dist` (from the @sentry/cli package, offline). */
async function buildDebugId(root: string): Promise<AppBuilds['debugId']> {
  const app = await buildEsbuild(root);
  const cli = join(packageRoot, 'node_modules/@sentry/cli/bin/sentry-cli');
  await execFileAsync(process.execPath, [cli, 'sourcemaps', 'inject', app.dist], {
    timeout: 30_000,
    env: { ...process.env, SENTRY_DISABLE_UPDATE_CHECK: 'true', SENTRY_LOAD_DOTENV: '0' },
  });
  const code = readFileSync(join(app.dist, app.bundle), 'utf8');
  const map = JSON.parse(readFileSync(join(app.dist, app.map), 'utf8')) as SourceMapV3;
  const comment = /\/\/# debugId=([0-9a-f-]{36})\s*$/.exec(code)?.[1];
  if (!comment || map.debugId !== comment) throw new Error(`sentry-cli did not inject a debug id (comment ${comment}, map ${map.debugId})`);
  return { ...app, debugIdOf: comment };
}

/** Makes every build under `dir`. */
export async function makeAppBuilds(dir: string): Promise<AppBuilds> {
  const [esbuild, esbuildRelease2, terser, indexMap, debugId] = await Promise.all([
    buildEsbuild(join(dir, 'esbuild')),
    buildEsbuild(join(dir, 'esbuild-release-2'), { 'banner.ts': 'variants/banner.ts' }),
    buildTerser(join(dir, 'terser')),
    buildIndexMap(join(dir, 'index-map')),
    buildDebugId(join(dir, 'debug-id')),
  ]);
  return { esbuild, esbuildRelease2, terser, indexMap, debugId };
}
