// JavaScript function names, version 2: one name for one function whichever engine reported it.
// V8 writes `CheckoutStore.applyCoupon` and `HTMLButtonElement.<anonymous>`, SpiderMonkey
// `applyCoupon`, `initExportMenu/<` and `initExportMenu/handler`, JavaScriptCore `applyCoupon`,
// `global code` and nothing at all for anonymous functions.
import { ANONYMOUS, MODULE_CODE, normalizeFunction as normalizeV1 } from '../../normalize-v1.js';
import { memoize } from '../../../memo.js';
import { normalizeFilename } from '../../../names/files.js';

/** V8's alias suffix: `Foo.bar [as baz]`. */
const V8_ALIAS = /\s*\[as [^\]]*\]$/;
const ACCESSOR_PREFIX = /^(?:get|set|static)\s+/;
/** JavaScriptCore's names for code outside any function, and V8's for code run by eval. */
const TOP_LEVEL = /^(?:(?:global|eval|module) code|eval)$/;
/** SpiderMonkey's `@` separator when a stack line was not parsed. */
const SPIDERMONKEY_LOCATION = /@.*$/s;
const SPIDERMONKEY_SUFFIX = /[<*]+$/;

function normalizeNow(name: string): string | undefined {
  let fn = normalizeV1(name.replace(V8_ALIAS, ''));
  if (fn === undefined || fn === MODULE_CODE || fn === ANONYMOUS) return fn;
  fn = fn.replace(SPIDERMONKEY_LOCATION, '').replace(ACCESSOR_PREFIX, '');
  if (TOP_LEVEL.test(fn)) return ANONYMOUS;
  // SpiderMonkey nests: `outer/inner` is inner; `outer/<` an anonymous function inside outer, which
  // V8 and JavaScriptCore report as anonymous, so it is one too. A generator's `*` goes.
  if (fn.includes('/')) {
    const last = fn.slice(fn.lastIndexOf('/') + 1);
    if (last.replace(SPIDERMONKEY_SUFFIX, '') === '') return ANONYMOUS;
    fn = last;
  }
  fn = fn.replace(SPIDERMONKEY_SUFFIX, '');
  // The receiver (`CheckoutStore.`, `HTMLButtonElement.`, `Object.`) is V8's alone: the name is the last part.
  const dot = fn.lastIndexOf('.');
  if (dot >= 0 && dot < fn.length - 1) fn = fn.slice(dot + 1);
  if (fn === '' || fn === ANONYMOUS || fn === '<anonymous>') return ANONYMOUS;
  return fn;
}

/**
 * `CheckoutStore.applyCoupon`, `async applyCoupon` and `applyCoupon` -> `applyCoupon`;
 * `HTMLButtonElement.<anonymous>`, `initExportMenu/<`, `global code` and `?` -> `?`;
 * `initExportMenu/handler` -> `handler`; `Object.<anonymous>` (Node module code) -> `<module>`.
 */
export const normalizeJavaScriptFunction: (name: string) => string | undefined = memoize(normalizeNow);

/** Files that are not files: built-ins, `eval`, Node's own modules — whether they show depends on the engine and its version. */
const NOT_A_SOURCE = /^(?:<anonymous>|\[native code\]|native|index \d+|eval(?: at .*)?|<eval>|node:.*|internal\/.*|<unknown>)$/s;
const URL_PATH = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)?/i;
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]sx?|vue|svelte|wasm)$/i;

/** A JavaScript frame's file that says nothing about where the code is: a built-in, or a runtime file. */
export function isRuntimeFile(file: string): boolean {
  return NOT_A_SOURCE.test(file.trim());
}

/** A page rather than a script: an inline `<script>` or an event-handler attribute runs "at" the page URL. */
export function isPageUrl(file: string): boolean {
  const path = URL_PATH.exec(file.trim())?.[1];
  if (path === undefined) return false;
  return !SCRIPT_EXTENSION.test(path);
}

/** V8 and SpiderMonkey add the callers an `await` returns to (`async loadPage`, `async*`); JavaScriptCore does not. */
const ASYNC_FRAME = /^async[\s*]/;

export function isAsyncFrame(rawFunction: string): boolean {
  return ASYNC_FRAME.test(rawFunction.trim());
}

const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;
const QUERY_OR_FRAGMENT = /[?#].*$/s;
const SEPARATORS = /[/\\]+/;
/** The extension of a script or its source: a TypeScript file and what it compiles to are one file. */
const SCRIPT_SUFFIX = /\.(?:[cm]?[jt]sx?|vue|svelte)$/i;
/** File names that say little without their folder: routes and entry points of Next.js, SvelteKit, Remix, Node. */
const GENERIC_STEMS = new Set([
  'index',
  'page',
  'route',
  'layout',
  'loading',
  'error',
  'template',
  'default',
  'main',
  'app',
  'mod',
  '+page',
  '+layout',
  '+server',
  '_app',
  'handler',
]);

function locationNow(file: string): string {
  const path = file.trim().replace(ORIGIN, '').replace(QUERY_OR_FRAGMENT, '');
  const segments = path.split(SEPARATORS).filter((segment) => segment !== '' && segment !== '.');
  const name = normalizeFilename(segments.pop() ?? '').replace(SCRIPT_SUFFIX, '');
  const stem = name.split('.')[0];
  if (!GENERIC_STEMS.has(stem) || segments.length === 0) return name;
  return `${normalizeFilename(segments[segments.length - 1])}/${name}`;
}

/**
 * Where a JavaScript frame is: the file name without hashes and script extension, with its folder
 * when the name alone says little. `…/chunks/app/cart/page-8f2a1c3d.js` -> `cart/page`,
 * `src/jobs/poller.ts` and `dist/jobs/poller.js` -> `poller`.
 */
export const javaScriptLocation: (file: string) => string = memoize(locationNow);
