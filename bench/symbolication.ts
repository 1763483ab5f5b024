// The symbolication phase, in process: the `symbolication` processor over an in-memory artifact
// store, on events whose frames are real V8 stack traces of a realistic esbuild bundle.
//
// - A synthetic app of many modules (classes, methods, helpers, a call chain through them) is
//   bundled and minified by esbuild: ~5 MB of source map at 450 modules, ~10 MB at 900.
// - The 5 MB bundle runs in a vm context under a CDN URL; each of 200 entry points throws after a
//   chain of 5-9 calls, which gives 200 distinct stack traces with real positions and minified names.
// - Throughput: one event per process() call (as the HTTP receiver hands them over), each a fresh
//   copy, for a fixed time: with the map and minified source uploaded (the map parsed once, then
//   warm), and the same events with nothing uploaded (lookups answered "nothing"). CPU per event
//   is process.cpuUsage() over the run.
// - Per-frame cost without the processor's position memo: every frame resolved once more through
//   the map (position, function-name scan, context lines).
// - Cold parse: one event against a fresh processor with the ~10 MB map uploaded (worker start,
//   read, parse, hand-off), and again with the worker already running; meanwhile a 1 ms timer
//   measures the longest event-loop gap.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import type { Item } from '../src/engine/item.js';
import type { ArtifactScope } from '../src/records/artifact.js';
import type { ErrorEvent, StackFrame } from '../src/records/event.js';
import { parseStacktrace } from '../connectors/exceptions/stacktrace-text.js';
import { symbolicationConfigSchema } from '../processors/symbolication/config.js';
import { originalFunctionName } from '../processors/symbolication/function-names.js';
import { SymbolicationProcessor } from '../processors/symbolication/processor.js';
import { ScopeNames } from '../processors/symbolication/scope-names.js';
import { ParsedSourceMap, SourceText } from '../processors/symbolication/source-map.js';
import { WorkerPool } from '../processors/symbolication/pool.js';
import { InMemoryArtifacts } from '../test/support/artifacts.js';
import { tempDir } from './service.js';
import { Samples } from './stats.js';

export interface SymbolicationResult {
  map: { bytes: number; segments: number; sources: number; minifiedBytes: number; cacheBytes: number };
  events: { distinct: number; bundleFramesPerEvent: number };
  withMap: Throughput;
  withoutMap: Throughput;
  /** withMap events/s over withoutMap events/s. */
  ratio: number;
  /** Events with no frame to symbolicate (the synchronous fast path). */
  fastPath: Throughput;
  /** One frame resolved through the map without the memo (position, the declaration scan's function name, context), µs. */
  frameMicros: { p50: number; p99: number; max: number; n: number };
  /**
   * Scope-based function names: the minified file parsed for its function scopes (acorn, in the
   * worker), then per frame the enclosing scope's original name; CPU per symbolicated frame with
   * them and without them (scope_max_bytes 0: the declaration scan), warm.
   */
  scopes: {
    parseMs: number;
    count: number;
    cacheBytes: number;
    /** One frame without the memo: position, the scope's name, context, µs. */
    frameMicros: { p50: number; p99: number; max: number; n: number };
    withScopes: Throughput & { cpuMicrosPerFrame: number };
    withoutScopes: Throughput & { cpuMicrosPerFrame: number };
  };
  coldParse: {
    bytes: number;
    /** One event, fresh processor: worker start + read + parse + hand-off, ms. */
    firstMs: number;
    /** The same with the worker already running (another file), ms. */
    warmWorkerMs: number;
    /** The worker's own share (JSON.parse, decode, flatten), ms, from a bare pool. */
    workerMs: number;
    /** The longest event-loop gap seen during the cold parses, ms (1 ms timer). */
    maxLoopGapMs: number;
    /** The longest garbage-collector pause meanwhile, ms (part of the gap). */
    maxGcPauseMs: number;
  };
}

export interface Throughput {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  cpuMicrosPerEvent: number;
}

const URL_BASE = 'https://cdn.example.com/static/js/';
const SCOPE: ArtifactScope = { dataset: 'live', projectId: 'bench', release: 'shop-web@2.15.0', dist: null };
const TENANT = { orgId: 'org', projectId: 'bench', dataset: 'live' as const };
const ENTRIES = 200;

/** The synthetic app's files: `modules` modules calling each other, and 200 entry points. */
function appSources(modules: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let m = 0; m < modules; m++) {
    const next = (m + 1) % modules;
    let s = `import { step${next} } from './m${next}.js';\n\n`;
    s += `export class Store${m} {\n  constructor(options) {\n    this.options = options ?? {};\n    this.cache = new Map();\n  }\n`;
    for (let f = 0; f < 12; f++) {
      s += `\n  method${f}(input, count) {\n    const key = \`k\${input}-${f}\`;\n    if (this.cache.has(key)) return this.cache.get(key);\n    let total = 0;\n`;
      s += `    for (let i = 0; i < count; i++) {\n      total += (input * i + ${f}) % 97;\n    }\n    if (total < 0) {\n      throw new RangeError(\`negative total in method${f} of module ${m}\`);\n    }\n`;
      s += `    this.cache.set(key, total);\n    return total;\n  }\n`;
    }
    s += `}\n`;
    for (let f = 0; f < 10; f++) {
      s += `\nexport function compute${m}_${f}(values, factor) {\n  const out = [];\n  for (const value of values) {\n    const scaled = value * factor + ${f};\n`;
      s += `    out.push(scaled > 100 ? Math.sqrt(scaled) : scaled);\n  }\n  return out.filter((x) => Number.isFinite(x));\n}\n`;
    }
    s += `\nexport function step${m}(depth, payload) {\n  const store = new Store${m}({ id: payload.id });\n  const value = store.method${m % 12}(payload.items.length, 3);\n`;
    s += `  if (depth <= 0) {\n    throw new TypeError(\`cart \${payload.id} is invalid in module ${m} (\${value})\`);\n  }\n`;
    s += `  return compute${m}_${m % 10}([value], 2).length + step${next}(depth - 1, payload);\n}\n`;
    files[`src/m${m}.js`] = s;
  }
  let index = '';
  for (let k = 0; k < ENTRIES; k++) {
    const m = (k * 7) % modules;
    index += `import { step${m} } from './m${m}.js';\nexport const entry${k} = (payload) => step${m}(${4 + (k % 5)}, payload);\n`;
  }
  files['src/index.js'] = index;
  return files;
}

export async function bundleApp(dir: string, modules: number): Promise<{ code: string; map: string }> {
  const root = join(dir, `app${modules}`);
  for (const [file, text] of Object.entries(appSources(modules))) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  const result = await build({
    entryPoints: [join(root, 'src/index.js')],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'iife',
    globalName: 'App',
    sourcemap: 'linked',
    sourcesContent: true,
    write: false,
    outfile: join(root, 'dist/app.js'),
    logLevel: 'silent',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text ?? '';
  return { code, map };
}

/** The 200 stack traces of the bundle, as the OTLP path parses V8 text (bundle frames only). */
export function stacks(code: string, url: string): StackFrame[][] {
  const app = runInNewContext(`${code}\n;App`, { Math, Map, Number }, { filename: url }) as Record<string, (p: unknown) => unknown>;
  const out: StackFrame[][] = [];
  for (let k = 0; k < ENTRIES; k++) {
    try {
      app[`entry${k}`]({ id: `c${k}`, items: [1, 2, 3] });
    } catch (error) {
      const frames = parseStacktrace((error as Error).stack ?? '', 'javascript').filter((f) => f.abs_path === url);
      // What a browser SDK sends: no in_app, the URL as abs_path and filename.
      out.push(frames.map(({ in_app: _inApp, platform: _platform, ...frame }) => frame));
      continue;
    }
    throw new Error(`entry${k} did not throw`);
  }
  return out;
}

export function eventOf(frames: StackFrame[], k: number): ErrorEvent {
  return {
    id: `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`,
    timestamp: '2026-11-22T10:00:00.000Z',
    environment: 'production',
    release: SCOPE.release,
    level: 'error',
    platform: 'javascript',
    exception: { type: 'TypeError', value: `cart c${k} is invalid`, stacktrace: frames },
    project_id: TENANT.projectId,
    received_at: '2026-11-22T10:00:00.100Z',
    processing_errors: [],
  };
}

/** Runs `processor` on one fresh copy of an event per call, for `seconds`. */
async function throughput(processor: SymbolicationProcessor, templates: ErrorEvent[], seconds: number): Promise<Throughput> {
  const run = async (until: number) => {
    let n = 0;
    while (performance.now() < until) {
      for (let i = 0; i < 50; i++) {
        const t = templates[n % templates.length];
        const item: Item<ErrorEvent> = { data: { ...t, exception: { ...t.exception }, processing_errors: [] }, tenant: TENANT, receivedAt: 0, size: 4096 };
        const pending = processor.process([item]);
        if (pending) await pending;
        n++;
      }
    }
    return n;
  };
  await run(performance.now() + Math.min(1000, seconds * 250)); // warm-up: parse, JIT, memo
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const events = await run(t0 + seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { events, seconds: elapsed, eventsPerSecond: events / elapsed, cpuMicrosPerEvent: (cpu.user + cpu.system) / events };
}

/** The longest gap between 1 ms timer ticks while `work` runs, and the longest garbage-collector pause. */
async function withLoopGap<T>(work: () => Promise<T>): Promise<{ value: T; gapMs: number; gcMs: number }> {
  let gap = 0;
  let gc = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gc = Math.max(gc, entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    const value = await work();
    return { value, gapMs: Math.max(gap, performance.now() - last), gcMs: gc };
  } finally {
    clearInterval(timer);
    observer.disconnect();
  }
}

export async function measureSymbolication(options: { seconds: number; log: (line: string) => void }): Promise<SymbolicationResult> {
  const { seconds, log } = options;
  const dir = tempDir('faultline-bench-symbolication-');
  const processors: SymbolicationProcessor[] = [];
  const newProcessor = (artifacts: InMemoryArtifacts, config: Record<string, unknown> = {}) => {
    const p = new SymbolicationProcessor(symbolicationConfigSchema.parse(config), { id: 'symbolication', artifacts });
    processors.push(p);
    return p;
  };
  try {
    log('  bundling the synthetic app with esbuild (450 and 900 modules)…');
    const [five, ten] = await Promise.all([bundleApp(dir, 450), bundleApp(dir, 900)]);
    const url = `${URL_BASE}app.3f9a1c2e.js`;
    const frames = stacks(five.code, url);
    const templates = frames.map((f, k) => eventOf(f, k));
    const framesPerEvent = frames.reduce((a, f) => a + f.length, 0) / frames.length;
    log(
      `  map ${(five.map.length / 2 ** 20).toFixed(1)} MiB, minified ${(five.code.length / 2 ** 20).toFixed(1)} MiB, ${frames.length} stacks of ${framesPerEvent.toFixed(1)} bundle frames`,
    );

    // Throughput with the map.
    const uploaded = new InMemoryArtifacts();
    uploaded.add(SCOPE, { name: '~/static/js/app.3f9a1c2e.js', type: 'minified_source', content: five.code });
    uploaded.add(SCOPE, { name: '~/static/js/app.3f9a1c2e.js.map', type: 'source_map', content: five.map });
    const withMapProcessor = newProcessor(uploaded);
    log(`  with the map: ${seconds} s…`);
    const withMap = await throughput(withMapProcessor, templates, seconds);
    const check = { ...templates[0], exception: { ...templates[0].exception }, processing_errors: [] };
    await withMapProcessor.process([{ data: check, tenant: TENANT, receivedAt: 0, size: 1 }]);
    const crash = check.exception.stacktrace?.at(-1);
    if (!crash?.filename?.startsWith('src/') || check.processing_errors.length > 0)
      throw new Error(`the bench events did not symbolicate: ${JSON.stringify(check.processing_errors)}`);
    log(
      `    ${Math.round(withMap.eventsPerSecond)} events/s, ${withMap.cpuMicrosPerEvent.toFixed(1)} µs CPU/event (crash frame: ${crash.function} ${crash.filename}:${crash.lineno})`,
    );

    log(`  the same events, nothing uploaded: ${seconds} s…`);
    const withoutMap = await throughput(newProcessor(new InMemoryArtifacts()), templates, seconds);
    log(`    ${Math.round(withoutMap.eventsPerSecond)} events/s, ${withoutMap.cpuMicrosPerEvent.toFixed(1)} µs CPU/event`);

    const python = templates.map((t) => ({
      ...t,
      platform: 'python',
      exception: { ...t.exception, stacktrace: [{ filename: 'app/cart.py', module: 'app.cart', function: 'checkout', lineno: 42 }] },
    }));
    const fastPath = await throughput(newProcessor(new InMemoryArtifacts()), python, Math.max(1, seconds / 2));
    log(`  fast path (no frame to symbolicate): ${Math.round(fastPath.eventsPerSecond)} events/s`);

    // Per-frame cost without the memo, straight through the parsed map.
    const pool = new WorkerPool(1);
    const parsed = new ParsedSourceMap(await pool.run('sourcemap', Buffer.from(five.map)));
    const minified = new SourceText(five.code);
    const perFrame = new Samples();
    for (const stack of frames) {
      for (const frame of stack) {
        const t0 = performance.now();
        const position = parsed.originalPosition(frame.lineno as number, frame.colno as number);
        if (frame.function) originalFunctionName({ map: parsed, minified }, frame.lineno as number, frame.colno as number, frame.function);
        if (position) {
          const text = parsed.sourceText(position.sourceIndex);
          for (let l = position.line - 5; l <= position.line + 5; l++) text?.line(l);
        }
        perFrame.add((performance.now() - t0) * 1000);
      }
    }

    // Scope-based names: the parse, one frame without the memo, and warm throughput with and without them.
    const scopesT0 = performance.now();
    const scopes = new ScopeNames(await pool.run('scopes', Buffer.from(five.code)));
    const scopesParseMs = performance.now() - scopesT0;
    const scopeFrame = new Samples();
    for (const stack of frames) {
      for (const frame of stack) {
        const t0 = performance.now();
        const position = parsed.originalPosition(frame.lineno as number, frame.colno as number);
        scopes.functionAt(parsed, frame.lineno as number, frame.colno as number);
        if (position) {
          const text = parsed.sourceText(position.sourceIndex);
          for (let l = position.line - 5; l <= position.line + 5; l++) text?.line(l);
        }
        scopeFrame.add((performance.now() - t0) * 1000);
      }
    }
    const perFrameOf = (t: Throughput) => ({ ...t, cpuMicrosPerFrame: t.cpuMicrosPerEvent / framesPerEvent });
    const withScopes = perFrameOf(withMap);
    log(`  the same with scope_max_bytes 0 (the declaration scan instead of scopes): ${seconds} s…`);
    const withoutScopes = perFrameOf(await throughput(newProcessor(uploaded, { scope_max_bytes: 0 }), templates, seconds));
    const scopeCheck = { ...templates[0], exception: { ...templates[0].exception }, processing_errors: [] };
    await withMapProcessor.process([{ data: scopeCheck, tenant: TENANT, receivedAt: 0, size: 1 }]);
    log(
      `    scopes: ${scopes.count} function scopes parsed in ${scopesParseMs.toFixed(0)} ms (worker), ${(scopes.bytes / 2 ** 20).toFixed(1)} MiB charged; warm CPU per symbolicated frame ${withScopes.cpuMicrosPerFrame.toFixed(2)} µs with scopes, ${withoutScopes.cpuMicrosPerFrame.toFixed(2)} µs with the declaration scan; one frame without the memo p50 ${scopeFrame.summary().p50.toFixed(1)} µs (scan: ${perFrame.summary().p50.toFixed(1)} µs); crash frame ${scopeCheck.exception.stacktrace?.at(-1)?.function}`,
    );

    // Cold parse of the ~10 MB map.
    const workerT0 = performance.now();
    await pool.run('sourcemap', Buffer.from(ten.map));
    const workerMs = performance.now() - workerT0;
    await pool.close();
    const tenUrl = `${URL_BASE}app.big.js`;
    const tenEvent = eventOf(stacks(ten.code, tenUrl)[0], 0);
    // Two releases with the same map but for a trailing space (another sha256: parsed anew).
    const bigStore = new InMemoryArtifacts();
    bigStore.add(SCOPE, { name: '~/static/js/app.big.js.map', type: 'source_map', content: ten.map });
    bigStore.add({ ...SCOPE, release: 'shop-web@2.16.0' }, { name: '~/static/js/app.big.js.map', type: 'source_map', content: `${ten.map} ` });
    const coldProcessor = newProcessor(bigStore);
    const parseOnce = (release: string) =>
      withLoopGap(async () => {
        const t0 = performance.now();
        const event = { ...tenEvent, release, exception: { ...tenEvent.exception }, processing_errors: [] };
        await coldProcessor.process([{ data: event, tenant: TENANT, receivedAt: 0, size: 1 }]);
        if (event.processing_errors.length > 0) throw new Error(`the cold parse failed: ${JSON.stringify(event.processing_errors)}`);
        return performance.now() - t0;
      });
    const first = await parseOnce(SCOPE.release);
    const warmWorker = await parseOnce('shop-web@2.16.0');
    log(
      `  cold parse of a ${(ten.map.length / 2 ** 20).toFixed(1)} MiB map: ${first.value.toFixed(0)} ms with a worker to start, ${warmWorker.value.toFixed(0)} ms with one running (worker alone ${workerMs.toFixed(0)} ms); longest event-loop gap ${Math.max(first.gapMs, warmWorker.gapMs).toFixed(1)} ms, of which GC up to ${Math.max(first.gcMs, warmWorker.gcMs).toFixed(1)} ms`,
    );

    return {
      map: {
        bytes: five.map.length,
        segments: parsed.segmentCount,
        sources: parsed.sources.length,
        minifiedBytes: five.code.length,
        cacheBytes: withMapProcessor.services.cache.bytes,
      },
      events: { distinct: frames.length, bundleFramesPerEvent: framesPerEvent },
      withMap,
      withoutMap,
      ratio: withMap.eventsPerSecond / withoutMap.eventsPerSecond,
      fastPath,
      frameMicros: perFrame.summary(),
      scopes: { parseMs: scopesParseMs, count: scopes.count, cacheBytes: scopes.bytes, frameMicros: scopeFrame.summary(), withScopes, withoutScopes },
      coldParse: {
        bytes: ten.map.length,
        firstMs: first.value,
        warmWorkerMs: warmWorker.value,
        workerMs,
        maxLoopGapMs: Math.max(first.gapMs, warmWorker.gapMs),
        maxGcPauseMs: Math.max(first.gcMs, warmWorker.gcMs),
      },
    };
  } finally {
    await Promise.all(processors.map((p) => p.shutdown()));
    rmSync(dir, { recursive: true, force: true });
  }
}
