// The symbolication processor's cost, from outside: a synthetic app — 450 modules, each a class of
// 12 methods, 10 helpers and a `step` calling the next module's, plus 200 entry points — bundled and
// minified by esbuild (a ~5 MiB source map); the bundle runs in a vm context under a CDN URL and
// each entry point throws after 5-9 calls, so the events carry 200 real V8 stack traces (minified
// names and positions). The bundle and its map are uploaded with the CLI
// (`faultline sourcemaps upload`) to the service as a child process on the default config; a
// second child runs the default config without the symbolication processor. The same events at
// the same offered rate to both, interleaved: events whose release has the map (resolved; the
// first of them parses it: cold), the same events under a release with nothing uploaded (each
// gets its `missing_source_map` note), and events with no minified frame (a Python frame: the
// fast path). The first event after the upload is timed alone (cold: the map read and parsed),
// then the next one (warm).
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { eventLoad, interleaved, postEach, roundsFor, warmEvents, withPhaseChildren, type FeaturePhase, type PhaseChild } from './child-phase.js';
import { defaultConfig, withoutProcessor } from './config-variants.js';
import { cpuSeconds } from './memory.js';
import { BIN, tempDir } from './service.js';

export interface SymbolicationResult extends FeaturePhase {
  map: { bytes: number; minifiedBytes: number };
  events: { distinct: number; bundleFramesPerEvent: number };
  /** The first event after the upload (the map read and parsed) and the next: ms to the answer, ms of the service's CPU. */
  cold: { latencyMs: number; cpuMs: number };
  warm: { latencyMs: number; cpuMs: number };
}

interface Frame {
  filename: string;
  abs_path: string;
  function?: string;
  lineno: number;
  colno: number;
}

const URL_BASE = 'https://cdn.example.com/static/js/';
const BUNDLE = 'app.3f9a1c2e.js';
const RELEASE = 'shop-web@2.15.0';
const RELEASE_WITHOUT_MAPS = 'shop-web@2.15.1';
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

async function bundleApp(dir: string, modules: number): Promise<{ code: string; map: string }> {
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

/** `    at fn (url:line:col)` or `    at url:line:col`: the V8 frame lines of our own bundle's errors (bench text, not sender text). */
const V8_FRAME = /^ {4}at (?:([^\s(]+(?: \[as [^\]]+\])?) \()?(https:\/\/[^\s()]+):(\d+):(\d+)\)?$/;

/** The 200 stack traces of the bundle, oldest call first, bundle frames only, as a browser SDK sends them (no in_app). */
function stacks(code: string, url: string): Frame[][] {
  const app = runInNewContext(`${code}\n;App`, { Math, Map, Number }, { filename: url }) as Record<string, (p: unknown) => unknown>;
  const out: Frame[][] = [];
  for (let k = 0; k < ENTRIES; k++) {
    try {
      app[`entry${k}`]({ id: `c${k}`, items: [1, 2, 3] });
    } catch (error) {
      const frames: Frame[] = [];
      for (const line of ((error as Error).stack ?? '').split('\n')) {
        const m = V8_FRAME.exec(line);
        if (m && m[2] === url) frames.push({ filename: url, abs_path: url, ...(m[1] ? { function: m[1] } : {}), lineno: Number(m[3]), colno: Number(m[4]) });
      }
      out.push(frames.reverse());
      continue;
    }
    throw new Error(`entry${k} did not throw`);
  }
  return out;
}

function body(frames: Frame[], k: number, release: string, platform = 'javascript'): Buffer {
  return Buffer.from(
    JSON.stringify({
      timestamp: new Date().toISOString(),
      environment: 'production',
      release,
      level: 'error',
      platform,
      exception: { type: 'TypeError', value: `cart c${k} is invalid`, stacktrace: frames },
    }),
  );
}

async function upload(child: PhaseChild, dir: string, code: string, map: string): Promise<void> {
  const folder = join(dir, 'upload');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, BUNDLE), code);
  writeFileSync(join(folder, `${BUNDLE}.map`), map);
  await promisify(execFile)(
    process.execPath,
    [BIN, 'sourcemaps', 'upload', '--project', 'default', '--release', RELEASE, '--url-prefix', '~/static/js', '--url', child.svc.baseUrl, folder],
    { env: { ...process.env, FAULTLINE_KEY: child.svc.liveKey }, maxBuffer: 1 << 20 },
  );
}

/** One event alone: ms to the answer and ms of the service's CPU until shortly after it; the event's stored crash frame. */
async function single(child: PhaseChild, event: Buffer): Promise<{ latencyMs: number; cpuMs: number; id: string }> {
  const cpu0 = cpuSeconds(child.svc.pid);
  const t0 = performance.now();
  const res = await fetch(`${child.svc.baseUrl}/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${child.svc.liveKey}`, 'content-type': 'application/json' },
    body: event,
  });
  const latencyMs = performance.now() - t0;
  const answer = (await res.json()) as { id: string };
  if (res.status >= 300) throw new Error(`POST /v1/events: ${res.status} ${JSON.stringify(answer)}`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { latencyMs, cpuMs: (cpuSeconds(child.svc.pid) - cpu0) * 1000, id: answer.id };
}

/** The crash frame of a stored event, read back through GET /v1/events/{id} (retried while it is being indexed). */
async function crashFrame(child: PhaseChild, id: string): Promise<{ filename?: string; function?: string; lineno?: number } | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const res = await child.api<{ exception?: { stacktrace?: Array<{ filename?: string; function?: string; lineno?: number }> } }>('GET', `/v1/events/${id}`);
    if (res.status === 200) return res.body.exception?.stacktrace?.at(-1);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}

export async function measureSymbolication(options: { seconds: number; log: (line: string) => void; rate?: number }): Promise<SymbolicationResult> {
  const { seconds, log } = options;
  const rate = options.rate ?? 200;
  const dir = tempDir('faultline-bench-symbolication-');
  try {
    log('  bundling the synthetic app with esbuild (450 modules)…');
    const app = await bundleApp(dir, 450);
    const frames = stacks(app.code, `${URL_BASE}${BUNDLE}`);
    const framesPerEvent = frames.reduce((a, f) => a + f.length, 0) / frames.length;
    const mapped = frames.map((f, k) => body(f, k, RELEASE));
    const unmapped = frames.map((f, k) => body(f, k, RELEASE_WITHOUT_MAPS));
    const python = frames.map((_, k) =>
      body([{ filename: 'app/cart.py', abs_path: '/srv/app/cart.py', function: `checkout_${k}`, lineno: 42, colno: 0 }], k, RELEASE, 'python'),
    );
    const variants = [
      { name: 'symbolication-on', doc: defaultConfig() },
      { name: 'symbolication-off', doc: withoutProcessor(defaultConfig(), 'symbolication') },
    ];
    return await withPhaseChildren(variants, async ([on, off]) => {
      log(`  uploading the map (${(app.map.length / 2 ** 20).toFixed(1)} MiB) with \`faultline sourcemaps upload\`…`);
      await upload(on, dir, app.code, app.map);
      const cold = await single(on, mapped[0]);
      const warm = await single(on, mapped[1]);
      const crash = await crashFrame(on, warm.id);
      if (!crash?.filename?.startsWith('src/')) throw new Error(`the bench events did not symbolicate: crash frame ${JSON.stringify(crash)}`);
      log(
        `    cold ${cold.latencyMs.toFixed(0)} ms (${cold.cpuMs.toFixed(0)} ms CPU), warm ${warm.latencyMs.toFixed(1)} ms; crash frame ${crash.function} ${crash.filename}:${crash.lineno}`,
      );
      // Every issue open on both children first, so the runs compare symbolication, not issue creation.
      await Promise.all([on, off].map((child) => postEach(child, [...mapped, ...unmapped, ...python])));
      await warmEvents([on, off], mapped, rate, options.seconds);
      const run = (child: PhaseChild, events: Buffer[]) => () => eventLoad(child.svc, events, rate, seconds, 0.3);
      const loads = await interleaved(roundsFor(seconds), {
        mappedOn: run(on, mapped),
        mappedOff: run(off, mapped),
        unmappedOn: run(on, unmapped),
        unmappedOff: run(off, unmapped),
        pythonOn: run(on, python),
        pythonOff: run(off, python),
      });
      return {
        title: `SYMBOLICATION  the service (child process), the default config against the same without the symbolication processor; ${frames.length} real V8 stack traces of an esbuild bundle (${framesPerEvent.toFixed(1)} minified frames each), map ${(app.map.length / 2 ** 20).toFixed(1)} MiB uploaded with the CLI; ${rate}/s offered, ${seconds} s runs, interleaved`,
        item: 'event',
        rows: [
          { label: 'map and minified source uploaded (warm: every frame resolved)', with: loads.mappedOn, without: loads.mappedOff },
          { label: 'the same events, a release with nothing uploaded', with: loads.unmappedOn, without: loads.unmappedOff },
          { label: 'no minified frame (one Python frame: the fast path)', with: loads.pythonOn, without: loads.pythonOff },
        ],
        notes: [
          `first event after the upload (cold: the map read and parsed): ${cold.latencyMs.toFixed(0)} ms to the answer, ${cold.cpuMs.toFixed(0)} ms of the service's CPU; the next event: ${warm.latencyMs.toFixed(1)} ms, ${warm.cpuMs.toFixed(0)} ms`,
          'CPU of the whole service per accepted event (all threads, /proc/<pid>/stat); noisy on a shared machine',
        ],
        map: { bytes: app.map.length, minifiedBytes: app.code.length },
        events: { distinct: frames.length, bundleFramesPerEvent: framesPerEvent },
        cold: { latencyMs: cold.latencyMs, cpuMs: cold.cpuMs },
        warm: { latencyMs: warm.latencyMs, cpuMs: warm.cpuMs },
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
