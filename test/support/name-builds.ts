// Real builds of the naming-rules app (test/fixtures/names) with five tools, as a project would
// make them: esbuild (minified, and not minified: its renames `_Order` and `Order2` show), terser
// over esbuild's bundle (the two maps chained), rollup (its rename `Order$1`), webpack in
// production mode (scope hoisting and its own terser), and tsc (one CommonJS file and map per
// module). TypeScript reaches rollup and webpack through esbuild's transform, with its map, as a
// TypeScript plugin or loader would. Every build but tsc's is one classic script (browsers load
// it); every build writes maps with `sourcesContent`.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transform } from 'esbuild';
import { rollup } from 'rollup';
import { minify } from 'terser';
import webpack from 'webpack';
import { packageRoot } from '../../src/paths.js';
import { esbuildApp } from './app-builds.js';

export const NAMES_DIR = join(packageRoot, 'test/fixtures/names');

export type NameBuildTool = 'esbuild-min' | 'esbuild' | 'terser' | 'rollup' | 'webpack' | 'tsc';

export interface NameBuild {
  tool: NameBuildTool;
  /** The folder uploaded and served: every .js and .js.map in it. */
  dist: string;
  /** The file to run (Node) or load (browsers), in `dist`. */
  entry: string;
  /** Whether a browser can load `entry` as a classic script. */
  browser: boolean;
}

const TARGET = 'es2020';
const execFileAsync = promisify(execFile);

function copySources(root: string): void {
  cpSync(join(NAMES_DIR, 'src'), join(root, 'src'), { recursive: true });
}

async function buildEsbuild(root: string, minified: boolean): Promise<NameBuild> {
  copySources(root);
  await esbuildApp(root, minified, 'dist/app.js', 'src/main.ts', TARGET);
  return { tool: minified ? 'esbuild-min' : 'esbuild', dist: join(root, 'dist'), entry: 'app.js', browser: true };
}

/** Terser over esbuild's bundle, esbuild's map chained; inlining off, as in test/support/app-builds.ts (an inlined function has no frame). */
async function buildTerser(root: string): Promise<NameBuild> {
  copySources(root);
  await esbuildApp(root, false, 'intermediate/app.js', 'src/main.ts', TARGET);
  const out = await minify(
    { 'app.js': readFileSync(join(root, 'intermediate/app.js'), 'utf8') },
    {
      ecma: 2020,
      compress: { inline: false, reduce_funcs: false },
      sourceMap: { content: readFileSync(join(root, 'intermediate/app.js.map'), 'utf8'), filename: 'app.js', url: 'app.js.map' },
    },
  );
  if (out.code === undefined || typeof out.map !== 'string') throw new Error('terser produced no code or no map');
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, 'dist/app.js'), out.code);
  writeFileSync(join(root, 'dist/app.js.map'), out.map);
  return { tool: 'terser', dist: join(root, 'dist'), entry: 'app.js', browser: true };
}

async function buildRollup(root: string): Promise<NameBuild> {
  copySources(root);
  const bundle = await rollup({
    input: join(root, 'src/main.ts'),
    plugins: [
      {
        name: 'typescript-through-esbuild',
        resolveId: (source, importer) => (importer && source.startsWith('.') ? join(importer, '..', source.replace(/\.js$/, '.ts')) : null),
        transform: async (code, id) => {
          if (!id.endsWith('.ts')) return null;
          const out = await transform(code, { loader: 'ts', target: TARGET, sourcemap: true, sourcefile: id });
          return { code: out.code, map: out.map };
        },
      },
    ],
  });
  await bundle.write({ file: join(root, 'dist/app.js'), format: 'iife', sourcemap: true });
  await bundle.close();
  return { tool: 'rollup', dist: join(root, 'dist'), entry: 'app.js', browser: true };
}

const WEBPACK_LOADER = `// webpack loader: TypeScript through esbuild's transform, with its map.
const { transform } = require(${JSON.stringify(join(packageRoot, 'node_modules/esbuild'))});
module.exports = function (code) {
  const done = this.async();
  transform(code, { loader: 'ts', target: '${TARGET}', sourcemap: true, sourcefile: this.resourcePath }).then(
    (out) => done(null, out.code, out.map),
    done,
  );
};
`;

async function buildWebpack(root: string): Promise<NameBuild> {
  copySources(root);
  const loader = join(root, 'esbuild-loader.cjs');
  writeFileSync(loader, WEBPACK_LOADER);
  const compiler = webpack({
    mode: 'production',
    context: root,
    entry: './src/main.ts',
    output: { path: join(root, 'dist'), filename: 'app.js' },
    devtool: 'source-map',
    target: ['web', TARGET],
    resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
    module: { rules: [{ test: /\.ts$/, use: loader }] },
    optimization: { minimizeOptions: { javascript: { compress: { inline: false, reduce_funcs: false } } } },
  } as webpack.Configuration);
  const stats = await new Promise<webpack.Stats | undefined>((resolve, reject) => compiler.run((error, result) => (error ? reject(error) : resolve(result))));
  await new Promise<void>((resolve) => compiler.close(() => resolve()));
  if (!stats || stats.hasErrors()) throw new Error(`webpack failed: ${stats?.toString('errors-only')}`);
  return { tool: 'webpack', dist: join(root, 'dist'), entry: 'app.js', browser: true };
}

async function buildTsc(root: string): Promise<NameBuild> {
  copySources(root);
  const tsc = join(packageRoot, 'node_modules/typescript/bin/tsc');
  const sources = readdirSync(join(root, 'src')).map((file) => join(root, 'src', file));
  await execFileAsync(
    process.execPath,
    [
      tsc,
      '--outDir',
      join(root, 'dist'),
      '--rootDir',
      join(root, 'src'),
      '--sourceMap',
      '--inlineSources',
      '--module',
      'commonjs',
      '--target',
      TARGET,
      '--strict',
      '--skipLibCheck',
      '--types',
      'node',
      ...sources,
    ],
    { timeout: 60_000, cwd: packageRoot },
  );
  return { tool: 'tsc', dist: join(root, 'dist'), entry: 'main.js', browser: false };
}

/** Makes every build under `dir`. */
export async function makeNameBuilds(dir: string): Promise<NameBuild[]> {
  return Promise.all([
    buildEsbuild(join(dir, 'esbuild-min'), true),
    buildEsbuild(join(dir, 'esbuild'), false),
    buildTerser(join(dir, 'terser')),
    buildRollup(join(dir, 'rollup')),
    buildWebpack(join(dir, 'webpack')),
    buildTsc(join(dir, 'tsc')),
  ]);
}
