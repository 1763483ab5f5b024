// Errors from a page's inline scripts and from code a tag manager evaluates: the only frames are
// the page's URL (with its path ids and query string) and a line, with no function (`?`, none at
// all, Safari's `global code`, V8's `eval`), or `<anonymous>`. Several different errors happen on
// the same page with exactly such frames: they are different bugs, told apart only by the
// exception's type and message.
import { App } from '../common.js';
import { type Browser, type BrowserBug, browserBug, type Engine, type JsSite, PLAIN_SDK, SENTRY_BROWSER } from '../js.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'js-no-info-frames';

const shop = new App('shop-web', ['3.8.0', '3.8.1', '3.9.0', '3.9.2', '3.10.0']);
/** Pages of an Android app shown in its WebView: Chrome's engine only. */
const webview = new App('shop-android', ['7.2.0', '7.2.1', '7.3.0']);
const WEBVIEW: ReadonlyArray<readonly [Browser, number]> = [['chrome', 1]];

const UTM = ['', '', '?utm_source=newsletter&utm_campaign=may', '?ref=home', '?gclid=Cj0KCQjw', '?step=2'];

/** The page the event came from: fixed path, or one with an id in it, plus a query string. */
function pageUrl(path: string | ((rng: Random) => string)) {
  return (_release: number, rng: Random) => {
    const url = `https://shop.example.com${typeof path === 'string' ? path : path(rng)}${rng.pick(UTM)}`;
    return (site: JsSite, line: number, col: number, engine: Engine) => {
      // V8 gives code from `new Function` or an injected script the location `<anonymous>`.
      const filename = site.file === '<anonymous>' && (engine === 'v8' || engine === 'node') ? '<anonymous>' : url;
      return { filename, lineno: line, colno: col };
    };
  };
}

const inline = (line: number, col: number): JsSite => ({ toplevel: true, file: 'page', line, col });
/** A tag manager's `eval` of a snippet: V8 prints the `eval` frame at the page, Firefox an anonymous one. */
const evaluated = (line: number, col: number): JsSite[] => [inline(line, col), { toplevel: true, file: 'page', line, col: col + 9, names: { v8: 'eval' } }];
/** A snippet injected as a script element: V8 says `<anonymous>`. */
const injected = (col: number): JsSite => ({ toplevel: true, file: '<anonymous>', line: 1, col });

const checkout = pageUrl('/checkout');
/** The tag manager's snippets run only where its consent check passes (not in Safari, here). */
const TAG_MANAGER_BROWSERS: ReadonlyArray<readonly [Browser, number]> = [
  ['chrome', 4],
  ['edge', 1],
  ['firefox', 1],
];
const product = pageUrl((rng) => `/product/${rng.int(1000, 99999)}-${rng.pick(['blue-sneakers', 'canvas-tote', 'wool-socks', 'rain-jacket'])}`);
const home = pageUrl('/');

type NoInfoBug = Omit<BrowserBug, 'app' | 'sdk'> & { app?: App };

const BUGS: NoInfoBug[] = [
  {
    id: 'checkout-promo-listener',
    count: [8, 16],
    place: checkout,
    sites: [inline(212, 43)],
    error: { kind: 'read', obj: "document.getElementById('promo')", prop: 'addEventListener', nullish: 'null' },
  },
  {
    id: 'checkout-datalayer-push',
    count: [6, 14],
    place: checkout,
    sites: [inline(40, 17)],
    error: { kind: 'read', obj: 'window.dataLayer', prop: 'push', nullish: 'undefined' },
  },
  { id: 'checkout-summary-innerhtml', count: [5, 12], place: checkout, sites: [inline(233, 30)], error: { kind: 'set', obj: 'summary', prop: 'innerHTML' } },
  { id: 'checkout-gtag-undefined', count: [6, 14], place: checkout, sites: [inline(36, 5)], error: { kind: 'notDefined', name: 'gtag' } },
  {
    id: 'checkout-tag-pixel-src',
    count: [5, 12],
    place: checkout,
    browsers: TAG_MANAGER_BROWSERS,
    sites: evaluated(12, 5),
    error: { kind: 'read', obj: 'img', prop: 'src', nullish: 'undefined' },
  },
  {
    id: 'checkout-tag-parent-node',
    count: [4, 10],
    place: checkout,
    browsers: TAG_MANAGER_BROWSERS,
    sites: evaluated(12, 5),
    error: { kind: 'read', obj: 's', prop: 'parentNode', nullish: 'null' },
  },
  {
    // A cross-origin script's error: browsers hide everything but this.
    id: 'cross-origin-script-error',
    count: [8, 16],
    place: checkout,
    sites: [],
    error: () => ({ type: 'Error', value: 'Script error.' }),
  },
  {
    id: 'product-inline-variants-json',
    count: [6, 14],
    app: webview,
    place: product,
    browsers: WEBVIEW,
    sites: [inline(88, 21), { builtin: 'JSON.parse', file: 'page', line: 88, col: 21 }],
    error: { kind: 'jsonEmpty' },
  },
  {
    id: 'product-inline-gallery-length',
    count: [5, 12],
    app: webview,
    place: product,
    browsers: WEBVIEW,
    sites: [inline(140, 33)],
    error: { kind: 'read', obj: 'gallery', prop: 'length', nullish: 'undefined' },
  },
  {
    id: 'product-injected-reviews',
    count: [4, 10],
    app: webview,
    place: product,
    browsers: WEBVIEW,
    sites: [injected(15)],
    error: { kind: 'read', obj: 'widget', prop: 'reviews', nullish: 'undefined' },
  },
  {
    id: 'home-injected-consent',
    count: [4, 11],
    app: webview,
    place: home,
    browsers: WEBVIEW,
    sites: [injected(15)],
    error: { kind: 'notDefined', name: '__tcfapi' },
  },
];

export const jsNoInfoFrames: Category = {
  name: CATEGORY,
  description:
    'Inline and evaluated page scripts: frames with only a page URL (ids, query strings) and no function, or `<anonymous>`; different errors on one page must stay apart',
  build: (): CorpusEntry[] =>
    BUGS.flatMap((bug) => browserBug(CATEGORY, { ...bug, app: bug.app ?? shop, sdk: bug.app === webview ? PLAIN_SDK : SENTRY_BROWSER })),
};
