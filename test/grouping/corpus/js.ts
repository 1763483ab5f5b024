// JavaScript call stacks as each engine reports them. A stack is written once, as source-level
// call sites (`JsSite`), and rendered the way V8 (Chrome, Edge, Node), SpiderMonkey (Firefox) and
// JavaScriptCore (Safari) name and place its frames, then as a Sentry-style SDK sends them. What
// differs, as seen in real Chromium 156 and Firefox 153 stacks (and Safari's documented forms):
//
// | site                          | V8                              | Firefox            | Safari                 |
// |-------------------------------|---------------------------------|--------------------|------------------------|
// | method `applyCoupon` of class | `CheckoutStore.applyCoupon`     | `applyCoupon`      | `applyCoupon`          |
// | anonymous listener            | `HTMLButtonElement.<anonymous>` | `?`                | `?` / no function      |
// | arrow inside `initExportMenu` | `?` (or `Array.<anonymous>`)    | `initExportMenu/<` | `?` / no function      |
// | constructor                   | `new Foo`                       | `Foo`              | `Foo`                  |
// | awaiting caller               | `async loadAll`                 | (no frame; `async*loadAll` with devtools open) | (no frame) |
// | builtin                       | `Array.forEach` at `<anonymous>`| (no frame)         | `forEach` at `[native code]` |
// | script top level              | `?` (Node: `Object.<anonymous>`)| `?`                | `global code`          |
//
// V8 keeps the 10 innermost frames (Error.stackTraceLimit), Safari 100, Firefox 128. Columns of
// one source position differ by engine (V8 points at the property, SpiderMonkey at the object).
import { type App, envelope, occurrences } from './common.js';
import { type Random, stableInt } from './random.js';
import type { CorpusEntry, CorpusFrame } from './types.js';

export type Browser = 'chrome' | 'edge' | 'firefox' | 'safari';
export type Engine = 'v8' | 'gecko' | 'jsc' | 'node';

export const ENGINE_OF: Record<Browser, Engine> = { chrome: 'v8', edge: 'v8', firefox: 'gecko', safari: 'jsc' };

/** Innermost frames each engine keeps in `error.stack` by default. */
export const FRAME_LIMIT: Record<Engine, number> = { v8: 10, node: 10, gecko: 128, jsc: 100 };

const BROWSER_SHARE: ReadonlyArray<readonly [Browser, number]> = [
  ['chrome', 55],
  ['edge', 8],
  ['firefox', 12],
  ['safari', 25],
];

export function pickBrowser(rng: Random, share: ReadonlyArray<readonly [Browser, number]> = BROWSER_SHARE): Browser {
  return rng.weighted(share);
}

/** The `browser` tag an SDK derives from the user agent. */
export function browserTag(rng: Random, browser: Browser): string {
  switch (browser) {
    case 'chrome':
      return `Chrome ${rng.int(120, 126)}`;
    case 'edge':
      return `Edge ${rng.int(120, 125)}`;
    case 'firefox':
      return `Firefox ${rng.int(121, 127)}`;
    case 'safari':
      return rng.chance(0.6) ? `Mobile Safari ${rng.pick(['16.6', '17.4', '17.5'])}` : `Safari ${rng.pick(['17.3', '17.4', '17.5'])}`;
  }
}

/** One call site of the source, oldest call first in a stack. */
export interface JsSite {
  /** The function's own name; absent for an anonymous function. */
  fn?: string;
  /** The class it is a method of: V8 prints `Class.fn`. */
  cls?: string;
  /** V8's receiver type for an anonymous function called as a method (`HTMLButtonElement`). */
  receiver?: string;
  /** The named function an anonymous one is defined in: Firefox prints `enclosing/<`. */
  enclosing?: string;
  ctor?: boolean;
  /** A caller waiting on an `await`: only V8's async stack trace has it (`async fn`). */
  awaited?: boolean;
  /** A builtin such as `Array.forEach`: V8 and Safari print a frame without source, Firefox none. */
  builtin?: string;
  /** V8's location for the builtin (`<anonymous>`, or `index 0` for `Promise.all`). */
  builtinFile?: string;
  /** Script or module top level. */
  toplevel?: boolean;
  /** Names that follow no rule above, per engine (`''` for anonymous). */
  names?: Partial<Record<Engine, string>>;
  /** Source path (`src/cart/store.ts`, `node_modules/react-dom/…`), line and V8's column. */
  file: string;
  line: number;
  col: number;
  /** Code under node_modules: symbolication marks it `in_app: false` unless the SDK set `in_app`. */
  vendor?: boolean;
}

export interface Position {
  filename: string;
  abs_path?: string;
  lineno: number;
  colno: number;
}

export interface RenderOptions {
  /** Where the engine's position of a site ends up in the frame (original source, or a bundle). */
  place: (site: JsSite, line: number, col: number, engine: Engine) => Position;
  /**
   * `all`: the SDK marks every frame `in_app: true` (Sentry's browser SDK). `vendor`: the SDK
   * leaves it unset and symbolication marks vendor frames `false`.
   */
  inApp: 'all' | 'vendor';
  /** An anonymous frame's function: Sentry's `?`, or none at all. */
  anonymous?: '?';
  /** Keep at most this many innermost frames instead of the engine's default. */
  limit?: number;
  /**
   * Firefox with devtools open captures async stacks: an awaiting caller appears, its name prefixed
   * with the async cause (`async*loadPage`). Without devtools it has no such frame.
   */
  asyncStacks?: boolean;
}

/** The function an engine prints for a site, `''` for anonymous, or null when it prints no frame. */
export function engineName(site: JsSite, engine: Engine): string | null {
  const override = site.names?.[engine];
  if (override !== undefined) return override;
  const v8 = engine === 'v8' || engine === 'node';
  if (site.awaited && !v8) return null;
  if (site.builtin !== undefined) {
    if (v8) return site.builtin;
    return engine === 'jsc' ? site.builtin.slice(site.builtin.lastIndexOf('.') + 1) : null;
  }
  if (v8) {
    let name: string;
    if (site.fn !== undefined) name = site.ctor ? `new ${site.fn}` : site.cls ? `${site.cls}.${site.fn}` : site.fn;
    else if (site.toplevel && engine === 'node') name = 'Object.<anonymous>';
    else if (site.receiver !== undefined) name = `${site.receiver}.<anonymous>`;
    else name = '';
    return site.awaited && name !== '' ? `async ${name}` : name;
  }
  if (site.fn !== undefined) return site.fn;
  if (engine === 'gecko') return site.enclosing !== undefined ? `${site.enclosing}/<` : '';
  return site.toplevel ? 'global code' : '';
}

/** The column an engine reports for a site (V8's is the site's own). */
function engineColumn(site: JsSite, engine: Engine): number {
  if (engine === 'v8' || engine === 'node') return site.col;
  const key = `${site.file}:${site.line}:${site.col}:${site.fn ?? ''}`;
  const back = stableInt(`${key}:gecko`, 0, 14);
  // Safari mostly agrees with Firefox, sometimes with V8.
  const jscBack = stableInt(`${key}:jsc`, 0, 2) === 0 ? 0 : back;
  return Math.max(1, site.col - (engine === 'gecko' ? back : jscBack));
}

/** The frames an SDK sends for `sites` (oldest first) from `engine`, crashing frame last. */
export function renderJs(engine: Engine, sites: readonly JsSite[], options: RenderOptions): CorpusFrame[] {
  const frames: CorpusFrame[] = [];
  for (const site of sites) {
    const asyncCaller = options.asyncStacks === true && engine === 'gecko' && site.awaited === true && site.builtin === undefined;
    const name = asyncCaller ? `async*${site.fn ?? ''}` : engineName(site, engine);
    if (name === null) continue;
    const frame: CorpusFrame = {};
    if (name !== '') frame.function = name;
    else if (options.anonymous !== undefined) frame.function = options.anonymous;
    if (site.builtin !== undefined) {
      frame.filename = engine === 'jsc' ? '[native code]' : (site.builtinFile ?? '<anonymous>');
    } else {
      const position = options.place(site, site.line, engineColumn(site, engine), engine);
      frame.filename = position.filename;
      if (position.abs_path !== undefined) frame.abs_path = position.abs_path;
      frame.lineno = position.lineno;
      frame.colno = position.colno;
    }
    if (options.inApp === 'all') frame.in_app = true;
    else if (site.vendor) frame.in_app = false;
    frames.push(frame);
  }
  const limit = options.limit ?? FRAME_LIMIT[engine];
  return frames.length > limit ? frames.slice(frames.length - limit) : frames;
}

export type JsErrorKind =
  | { kind: 'read'; obj: string; prop: string; nullish: 'undefined' | 'null' }
  | { kind: 'set'; obj: string; prop: string }
  | { kind: 'notFunction'; callee: string }
  | { kind: 'notDefined'; name: string }
  | { kind: 'notIterable'; obj: string }
  | { kind: 'destructure'; obj: string; prop: string }
  | { kind: 'jsonHtml' }
  | { kind: 'jsonEmpty' }
  | { kind: 'fetch' };

/** The type and message each engine gives the same fault (Chromium 156, Firefox 153, Safari 17). */
export function jsError(engine: Engine, error: JsErrorKind): { type: string; value: string } {
  const v8 = engine === 'v8' || engine === 'node';
  switch (error.kind) {
    case 'read': {
      const { obj, prop, nullish } = error;
      if (v8) return type(`Cannot read properties of ${nullish} (reading '${prop}')`);
      if (engine === 'gecko') return type(`can't access property "${prop}", ${obj} is ${nullish}`);
      return type(`${nullish} is not an object (evaluating '${obj}.${prop}')`);
    }
    case 'set': {
      const { obj, prop } = error;
      if (v8) return type(`Cannot set properties of null (setting '${prop}')`);
      if (engine === 'gecko') return type(`can't access property "${prop}", ${obj} is null`);
      return type(`null is not an object (evaluating '${obj}.${prop}')`);
    }
    case 'notFunction':
      if (engine === 'jsc') return type(`${error.callee} is not a function. (In '${error.callee}()', '${error.callee}' is undefined)`);
      return type(`${error.callee} is not a function`);
    case 'notDefined':
      return { type: 'ReferenceError', value: engine === 'jsc' ? `Can't find variable: ${error.name}` : `${error.name} is not defined` };
    case 'notIterable':
      if (engine === 'gecko') return type(`can't access property Symbol.iterator, ${error.obj} is undefined`);
      if (engine === 'jsc') return type(`undefined is not a function (near '...of ${error.obj}...')`);
      return type(`${error.obj} is not iterable`);
    case 'destructure':
      if (engine === 'gecko') return type(`${error.obj} is undefined`);
      if (engine === 'jsc') return type('Right side of assignment cannot be destructured');
      return type(`Cannot destructure property '${error.prop}' of '${error.obj}' as it is undefined.`);
    case 'jsonHtml':
      if (engine === 'gecko') return syntax('JSON.parse: unexpected character at line 1 column 1 of the JSON data');
      if (engine === 'jsc') return syntax("JSON Parse error: Unrecognized token '<'");
      return syntax(`Unexpected token '<', "<!DOCTYPE "... is not valid JSON`);
    case 'jsonEmpty':
      if (engine === 'gecko') return syntax('JSON.parse: unexpected end of data at line 1 column 1 of the JSON data');
      if (engine === 'jsc') return syntax('JSON Parse error: Unexpected EOF');
      return syntax('Unexpected end of JSON input');
    case 'fetch':
      if (engine === 'gecko') return type('NetworkError when attempting to fetch resource.');
      if (engine === 'jsc') return type('Load failed');
      return type('Failed to fetch');
  }
}

const type = (value: string) => ({ type: 'TypeError', value });
const syntax = (value: string) => ({ type: 'SyntaxError', value });

// ---------------------------------------------------------------------------------------------
// Where frames point: symbolicated original sources, and React's own (minified, vendor) frames
// ---------------------------------------------------------------------------------------------

/** Frames after symbolication: the original path (`src/cart/store.ts`), lines moved per release. */
export function symbolicated(app: App, release: number): RenderOptions['place'] {
  return (site, line, col) => ({ filename: site.file, lineno: line + (site.vendor ? 0 : app.shift(release, site.file)), colno: col });
}

const REACT_DOM = 'node_modules/react-dom/cjs/react-dom.production.min.js';
const SCHEDULER = 'node_modules/scheduler/cjs/scheduler.production.min.js';
const react = (fn: string, line: number, col: number): JsSite => ({ fn, file: REACT_DOM, line, col, vendor: true });

/** React 18.2's production build dispatching a click to its handler (names as minified in the npm file). */
export const REACT_CLICK: readonly JsSite[] = [
  { fn: 'sd', cls: 'HTMLDivElement', file: REACT_DOM, line: 65, col: 5422, vendor: true },
  react('Sb', 123, 401),
  react('nf', 124, 25),
  react('se', 123, 223),
  react('Jb', 110, 268),
  react('Tb', 54, 445),
  react('Ub', 54, 285),
];

/** React 18.2's production build rendering a function component (the component is called last). */
export const REACT_RENDER: readonly JsSite[] = [
  { fn: 'S', cls: 'MessagePort', file: SCHEDULER, line: 13, col: 203, vendor: true },
  { fn: 'R', file: SCHEDULER, line: 13, col: 134, vendor: true },
  { fn: 'Q', file: SCHEDULER, line: 12, col: 477, vendor: true },
  react('Ik', 290, 25),
  react('Nk', 289, 337),
  react('Gk', 282, 79),
  react('Hk', 282, 3),
  react('ak', 290, 165),
  react('jk', 274, 6),
  react('Di', 181, 227),
];

// ---------------------------------------------------------------------------------------------
// A browser bug: one stack, reported from the browsers its users run
// ---------------------------------------------------------------------------------------------

export interface SdkFlavor {
  inApp: RenderOptions['inApp'];
  anonymous?: '?';
}

/** Sentry's browser SDK: every frame in_app, anonymous functions as `?`. */
export const SENTRY_BROWSER: SdkFlavor = { inApp: 'all', anonymous: '?' };
/** An SDK that leaves in_app and anonymous names out (symbolication marks vendor frames). */
export const PLAIN_SDK: SdkFlavor = { inApp: 'vendor' };

export interface BrowserBug {
  id: string;
  count: readonly [number, number];
  app: App;
  sdk: SdkFlavor;
  sites: readonly JsSite[];
  error: JsErrorKind | ((engine: Engine, release: number) => { type: string; value: string });
  /** Where the frames point for a release (default: symbolicated sources). */
  place?: (release: number, rng: Random) => RenderOptions['place'];
  browsers?: ReadonlyArray<readonly [Browser, number]>;
  /** Engines that give this error no stack at all (Firefox and Safari for fetch's network errors). */
  stackless?: readonly Engine[];
  /** Releases the bug exists in (default: all). */
  fromRelease?: number;
}

export function browserBug(category: string, bug: BrowserBug): CorpusEntry[] {
  return occurrences(category, bug.id, bug.count, (rng) => {
    const browser = pickBrowser(rng, bug.browsers);
    const engine = ENGINE_OF[browser];
    const release = bug.app.pickRelease(rng, bug.fromRelease);
    const place = bug.place ? bug.place(release, rng) : symbolicated(bug.app, release);
    // Some Firefox users (developers, testers) have devtools open.
    const asyncStacks = engine === 'gecko' && rng.chance(0.2);
    const frames = renderJs(engine, bug.sites, { place, inApp: bug.sdk.inApp, anonymous: bug.sdk.anonymous, asyncStacks });
    const error = typeof bug.error === 'function' ? bug.error(engine, release) : jsError(engine, bug.error);
    const stackless = bug.stackless?.includes(engine) ?? false;
    return envelope(rng, {
      release: bug.app.release(release),
      platform: 'javascript',
      exception: { ...error, ...(!stackless && frames.length > 0 && { stacktrace: frames }) },
      tags: { browser: browserTag(rng, browser) },
    });
  });
}
