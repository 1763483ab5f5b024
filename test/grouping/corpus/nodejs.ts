// Node.js frames as V8 prints them and as two SDKs send them: Sentry's Node SDK (module names,
// in_app, `async ` kept, `?` for anonymous) and the OTLP `exceptions` connector, whose text parser
// drops `async `, gives no module and keeps `Promise.all (index 1)` as a name without a file.
// Node's own frames change names and lines with the Node version.
import type { App } from './common.js';
import { stableInt } from './random.js';
import type { CorpusFrame } from './types.js';

export type NodeVersion = 18 | 20 | 22;
export type Via = 'sentry' | 'otlp';

/** A frame as V8 prints it: function (absent when anonymous), file (relative to the app root for app and node_modules code), line, column. */
export interface NodeSite {
  fn?: string;
  file: string;
  line?: number;
  col?: number;
  /** Printed `at async fn`: a caller waiting on an await. */
  async?: boolean;
}

const s = (fn: string | undefined, file: string, line?: number, col?: number, async = false): NodeSite => ({ fn, file, line, col, async });
export const nodeSite = s;

type Internals = Record<'ticks' | 'timers' | 'net' | 'buffer' | 'main' | 'require' | 'streamEnd', NodeSite[]>;

const LOADER = 'node:internal/modules/cjs/loader';

/** Node's own frames for one version; `load` is how the CommonJS loader runs a module's code (oldest first). */
function internals(v: {
  ticks: NodeSite;
  timers: [number, number];
  /** A readable stream's 'end' reaching its listeners: process.processTicksAndRejections, endReadableNT, emit. */
  streamEnd: [number, number, number];
  net: number;
  buffer: number;
  runMain: NodeSite[];
  require: NodeSite[];
  load: NodeSite[];
}): Internals {
  return {
    ticks: [v.ticks],
    timers: [s('process.processTimers', 'node:internal/timers', v.timers[0], 7), s('listOnTimeout', 'node:internal/timers', v.timers[1], 17)],
    net: [s('TCPConnectWrap.afterConnect [as oncomplete]', 'node:net', v.net, 16)],
    buffer: [s('Function.from', 'node:buffer', v.buffer, 9)],
    streamEnd: [
      s('process.processTicksAndRejections', 'node:internal/process/task_queues', v.streamEnd[0], 21),
      s('endReadableNT', 'node:internal/streams/readable', v.streamEnd[1], 12),
      s('IncomingMessage.emit', 'node:events', v.streamEnd[2], 28),
    ],
    main: [...v.runMain, ...v.load],
    require: [...v.require, ...v.load],
  };
}

/** Node's own frames, by version. */
export const INTERNALS: Record<NodeVersion, Internals> = {
  18: internals({
    streamEnd: [82, 1359, 517],
    ticks: s('process.processTicksAndRejections', 'node:internal/process/task_queues', 95, 5),
    timers: [512, 569],
    net: 1555,
    buffer: 328,
    runMain: [
      s(undefined, 'node:internal/main/run_main_module', 23, 47),
      s('Function.executeUserEntryPoint [as runMain]', 'node:internal/modules/run_main', 86, 12),
    ],
    require: [s('Module.require', LOADER, 1143, 19), s('require', 'node:internal/modules/cjs/helpers', 119, 18)],
    load: [
      s('Module._load', LOADER, 960, 12),
      s('Module.load', LOADER, 1119, 32),
      s('Module._extensions..js', LOADER, 1310, 10),
      s('Module._compile', LOADER, 1256, 14),
    ],
  }),
  20: internals({
    streamEnd: [82, 1698, 519],
    ticks: s('process.processTicksAndRejections', 'node:internal/process/task_queues', 95, 5),
    timers: [519, 581],
    net: 1611,
    buffer: 322,
    runMain: [
      s(undefined, 'node:internal/main/run_main_module', 28, 49),
      s('Function.executeUserEntryPoint [as runMain]', 'node:internal/modules/run_main', 164, 12),
    ],
    require: [s('Module.require', LOADER, 1288, 19), s('require', 'node:internal/modules/helpers', 188, 16)],
    load: [
      s('Module._load', LOADER, 1091, 12),
      s('Module.load', LOADER, 1266, 32),
      s('Module._extensions..js', LOADER, 1623, 10),
      s('Module._compile', LOADER, 1521, 14),
    ],
  }),
  22: internals({
    streamEnd: [90, 1696, 518],
    ticks: s('process.processTicksAndRejections', 'node:internal/process/task_queues', 105, 5),
    timers: [529, 594],
    net: 1634,
    buffer: 321,
    runMain: [
      s(undefined, 'node:internal/main/run_main_module', 36, 49),
      s('Function.executeUserEntryPoint [as runMain]', 'node:internal/modules/run_main', 171, 5),
    ],
    require: [s('Module.require', LOADER, 1333, 12), s('require', 'node:internal/modules/helpers', 136, 16)],
    load: [
      s('wrapModuleLoad', LOADER, 235, 24),
      s('TracingChannel.traceSync', 'node:diagnostics_channel', 322, 14),
      s('Function._load', LOADER, 1127, 12),
      s('Module.load', LOADER, 1311, 32),
      s('Object..js', LOADER, 1708, 10),
      s('Module._compile', LOADER, 1554, 14),
    ],
  }),
};

/** Express 4's router dispatching to a route handler (oldest first). */
export const EXPRESS: NodeSite[] = [
  s('next', 'node_modules/express/lib/router/index.js', 280, 10),
  s('Function.process_params', 'node_modules/express/lib/router/index.js', 346, 12),
  s(undefined, 'node_modules/express/lib/router/index.js', 284, 15),
  s('Layer.handle [as handle_request]', 'node_modules/express/lib/router/layer.js', 95, 5),
  s('Route.dispatch', 'node_modules/express/lib/router/route.js', 119, 3),
  s('next', 'node_modules/express/lib/router/route.js', 149, 13),
  s('Layer.handle [as handle_request]', 'node_modules/express/lib/router/layer.js', 95, 5),
];

const isApp = (file: string): boolean => file.startsWith('dist/') || file.startsWith('src/');

/** Sentry's Node SDK module name: the path below the entry's directory, `dir.sub:file`. */
function sentryModule(file: string): string | undefined {
  if (file.startsWith('node:') || file === '<anonymous>') return undefined;
  const path = file
    .replace(/^node_modules\//, '')
    .replace(/^dist\//, '')
    .replace(/\.[cm]?js$/, '');
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : `${path.slice(0, slash).replaceAll('/', '.')}:${path.slice(slash + 1)}`;
}

/**
 * With `node --enable-source-maps`, V8 reports the TypeScript source (`src/jobs/invoices.ts` and
 * its lines) instead of the compiled `dist/jobs/invoices.js`.
 */
function sourceMapped(site: NodeSite): NodeSite {
  if (!site.file.startsWith('dist/')) return site;
  const file = site.file.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts');
  return {
    ...site,
    file,
    line: site.line === undefined ? undefined : site.line + stableInt(`ts:${site.file}`, 2, 9),
    col: site.col === undefined ? undefined : Math.max(1, site.col - 4),
  };
}

/** The frames an SDK sends: V8's innermost `limit` frames, crashing frame last. */
export function renderNode(sites: readonly NodeSite[], via: Via, root: string, app: App, release: number, limit = 10, sourceMaps = false): CorpusFrame[] {
  const window = sites.slice(Math.max(0, sites.length - limit)).map((site) => (sourceMaps ? sourceMapped(site) : site));
  const frames = window.map((site): CorpusFrame => {
    const frame: CorpusFrame = {};
    if (site.fn !== undefined) frame.function = via === 'sentry' && site.async ? `async ${site.fn}` : site.fn;
    else if (via === 'sentry') frame.function = '?';
    const internal = site.file.startsWith('node:') || site.file === '<anonymous>' || site.file.startsWith('index ');
    if (site.file.startsWith('index ')) {
      // `at async Promise.all (index 1)`: the OTLP parser keeps the name only.
      if (via === 'sentry') frame.filename = site.file;
    } else {
      const path = internal ? site.file : `${root}/${site.file}`;
      frame.filename = path;
      if (!internal) frame.abs_path = path;
      if (site.line !== undefined) frame.lineno = site.line + (isApp(site.file) ? app.shift(release, site.file) : 0);
      if (site.col !== undefined) frame.colno = site.col;
    }
    if (via === 'sentry') {
      const module = internal ? undefined : sentryModule(site.file);
      if (module !== undefined) frame.module = module;
    } else {
      frame.platform = 'node';
    }
    frame.in_app = !internal && !site.file.startsWith('node_modules/');
    return frame;
  });
  return frames;
}
