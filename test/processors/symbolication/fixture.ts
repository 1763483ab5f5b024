// Real source maps for the symbolication tests: a small multi-file app (JavaScript, TypeScript, a
// node_modules dependency) bundled and minified by esbuild at test time, then run in a vm context
// under a CDN URL so V8 produces real stack traces. Expected original positions come from markers
// in the sources (`/*@name*/` right before a token), never from the mapping library.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { parseStacktrace } from '../../../connectors/exceptions/stacktrace-text.js';
import type { StackFrame } from '../../../src/records/event.js';

export const APP_SOURCES: Record<string, string> = {
  'src/index.js': `import { checkout } from './cart.js';
import { invoke } from 'tiny-lib';
import { renderWidget } from './widget.js';
export { renderWidget };

export function run(items) {
  return /*@run-call*/checkout(items, 2);
}

export function runThroughLibrary(items) {
  return invoke(function relay(list) {
    return /*@relay-call*/checkout(list, 3);
  }, items);
}

export const onSubmit = (form) => {
  const items = form.items.map((item) => ({ price: item.price }));
  return /*@onsubmit-call*/checkout(items, 5);
};
`,
  'src/cart.js': `import { applyDiscount } from './pricing.ts';

export function checkout(items, factor) {
  const total = items.reduce((sum, item) => sum + item.price, 0);
  return /*@checkout-call*/applyDiscount(total, factor);
}
`,
  'src/pricing.ts': `interface Totals {
  total: number;
}

// Applies a discount factor; a factor above 1 is a bug in the caller.
export function applyDiscount(total: number, factor: number): number {
  const totals: Totals = { total };
  if (factor > 1) {
    throw /*@throw*/new RangeError(\`discount factor \${factor} is too large for \${totals.total}\`);
  }
  return total * factor;
}
`,
  'src/widget.js': `export class Widget {
  render(props) {
    if (!props) throw /*@render-throw*/new TypeError('no props');
    return props.title;
  }
}

export function renderWidget(props) {
  const widget = new Widget();
  return widget./*@render-call*/render(props);
}
`,
  'node_modules/tiny-lib/index.js': `export function invoke(fn, arg) {
  return /*@vendor-call*/fn(arg);
}
`,
  'node_modules/tiny-lib/package.json': '{"name":"tiny-lib","version":"1.0.0","module":"index.js","main":"index.js"}',
  'src/edge.js': `const edgeValue = 'edge-' + Math.random();
/*@edge-first*/globalThis.__edge = edgeValue;
export function edge() {
  return edgeValue;
}
`,
};

export interface Marker {
  /** The file, as in APP_SOURCES. */
  file: string;
  /** 1-based. */
  line: number;
  /** 0-based (add 1 for a frame's colno). */
  column: number;
}

/** Every `/*@name*\/` marker: the position of the first non-blank character after it. */
export function markers(sources: Record<string, string> = APP_SOURCES): Map<string, Marker> {
  const out = new Map<string, Marker>();
  for (const [file, text] of Object.entries(sources)) {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(/\/\*@([\w-]+)\*\/\s*/g)) out.set(m[1], { file, line: i + 1, column: (m.index as number) + m[0].length });
    });
  }
  return out;
}

/** The 1-based line of a source file. */
export function sourceLine(file: string, line: number): string {
  return APP_SOURCES[file].split('\n')[line - 1];
}

export interface Bundle {
  dir: string;
  code: string;
  map: string;
  /** The map parsed, for tests that edit it. */
  mapJson: { version: number; sources: string[]; sourcesContent?: (string | null)[]; mappings: string; names: string[]; debugId?: string };
}

export function writeSources(): string {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-symbolication-'));
  for (const [file, text] of Object.entries(APP_SOURCES)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

export function removeSources(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Bundles an entry of the app (minified IIFE exposing `App` by default). */
export async function bundle(dir: string, options: { entry?: string; minify?: boolean; format?: 'iife' | 'esm'; outName?: string } = {}): Promise<Bundle> {
  const outName = options.outName ?? 'app.min.js';
  const result = await build({
    entryPoints: [join(dir, options.entry ?? 'src/index.js')],
    absWorkingDir: dir,
    bundle: true,
    minify: options.minify ?? true,
    format: options.format ?? 'iife',
    globalName: (options.format ?? 'iife') === 'iife' ? 'App' : undefined,
    sourcemap: 'linked', // the code ends with `//# sourceMappingURL=<name>.map`
    sourcesContent: true,
    write: false,
    outfile: join(dir, 'dist', outName),
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text ?? '';
  return { dir, code, map, mapJson: JSON.parse(map) as Bundle['mapJson'] };
}

export const BUNDLE_URL = 'https://cdn.example.com/static/js/app.min.js';

/** The exports of the IIFE bundle, run in a fresh context as if loaded from `url`. */
export function load(code: string, url = BUNDLE_URL): Record<string, (...args: unknown[]) => unknown> {
  return runInNewContext(`${code}\n;App`, { Math }, { filename: url }) as Record<string, (...args: unknown[]) => unknown>;
}

/** Calls `fn` and returns the frames of what it threw, as the OTLP path parses V8 stack text (oldest first). */
export function framesOf(fn: () => unknown): { frames: StackFrame[]; type: string; value: string } {
  try {
    fn();
  } catch (error) {
    const e = error as Error;
    return { frames: parseStacktrace(e.stack ?? '', 'node'), type: e.name, value: e.message };
  }
  throw new Error('did not throw');
}
