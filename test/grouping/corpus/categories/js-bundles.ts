// Frames that point into bundles, as sent when no source map was uploaded (the builds keep their
// function names: unminified, or minified with keep_fnames). Each release renames the files by
// content hash — webpack `main.4f3a2b1c.js` / `853.8f1c2d3e.chunk.js` / `[name].[contenthash:20].js`,
// Vite `index-oaDGsuMU.js` / `AlertRules--XcCpntA.js` (8 base64url chars: digits optional, `-` and
// `_` allowed), esbuild `chunk-UBTAZZLR.js`, Parcel `index.3f2a1b9c.js` and hash-only bundles,
// Next.js `page-9a8b7c6d5e4f3a2b.js` — and moves lines and columns. CDN URLs carry query strings.
// Hard negatives: bugs that differ only by a file name made of real words (`date-picker` vs
// `date-range`, `account-settings` vs `account-overview`, both 8 letters like a Vite hash), and
// two Next.js routes whose files are both `page.tsx` (symbolicated) with the same component name.
import { App } from '../common.js';
import { type BrowserBug, browserBug, type JsSite, REACT_RENDER, type RenderOptions, SENTRY_BROWSER } from '../js.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'js-bundles';

/** A chunk's URL in a release. */
type Naming = (app: App, release: number, chunk: string) => string;

const webpackCra =
  (origin: string): Naming =>
  (app, release, chunk) =>
    /^\d+$/.test(chunk)
      ? `${origin}/static/js/${chunk}.${app.build(release, chunk).hex(8)}.chunk.js`
      : `${origin}/static/js/${chunk}.${app.build(release, chunk).hex(8)}.js`;

const webpack5 =
  (origin: string): Naming =>
  (app, release, chunk) =>
    `${origin}/assets/${chunk}.${app.build(release, chunk).hex(20)}.js`;

/** Vite 5 (Rollup 4): `[name]-[hash:8]`, base64url. Release 2 of alerts-ui has the hashes quoted in the issue. */
const KNOWN_VITE_HASHES: Record<string, string> = { 'alerts-ui@4.2.0:index': 'oaDGsuMU', 'alerts-ui@4.2.0:AlertRules': '-XcCpntA' };
const vite =
  (origin: string): Naming =>
  (app, release, chunk) =>
    `${origin}/assets/${chunk}-${KNOWN_VITE_HASHES[`${app.release(release)}:${chunk}`] ?? app.build(release, chunk).base64url(8)}.js`;

/** esbuild: `[name]-[hash]` with an upper-case base32 hash; shared chunks are all called `chunk` (`chunk#…` tells ours apart). */
const esbuild =
  (origin: string): Naming =>
  (app, release, chunk) =>
    `${origin}/dist/${chunk.replace(/#.*$/, '')}-${app.build(release, chunk).base32(8)}.js`;

/** Parcel: `[name].[hash:8]`; a shared bundle's name is the hash alone. */
const parcel =
  (origin: string): Naming =>
  (app, release, chunk) =>
    chunk.startsWith('#') ? `${origin}/${app.build(release, chunk).hex(8)}.js` : `${origin}/${chunk}.${app.build(release, chunk).hex(8)}.js`;

/**
 * Frames in bundles: `site.file` names the chunk. Unminified bundles keep the module's lines
 * (moved as modules before it grow); minified ones put everything on line 1 or 2.
 */
function bundled(naming: Naming, minified: boolean, query?: (release: number, rng: Random) => string) {
  return (app: App) =>
    (release: number, rng: Random): RenderOptions['place'] => {
      const suffix = query ? query(release, rng) : '';
      return (site: JsSite, line: number, col: number) => {
        const url = naming(app, release, site.file) + suffix;
        if (!minified) return { filename: url, lineno: line + 3 * app.shift(release, site.file), colno: col };
        const start = app.build(release, `offset:${site.file}`).int(2_000, 60_000);
        return { filename: url, lineno: 1 + (site.line % 2), colno: start + line * 41 + col };
      };
    };
}

const site = (chunk: string, line: number, col: number, fields: Omit<JsSite, 'file' | 'line' | 'col'> = {}): JsSite => ({ ...fields, file: chunk, line, col });

const alerts = new App('alerts-ui', ['4.1.0', '4.1.1', '4.2.0', '4.3.0', '4.3.1', '4.4.0']);
const alertsPlace = bundled(vite('https://app.example.com'), false)(alerts);
const crm = new App('crm-web', ['2.3.0', '2.4.0', '2.4.1', '2.5.0', '2.6.0']);
const crmPlace = bundled(webpackCra('https://crm.example.com'), true)(crm);
const docs = new App('docs-site', ['0.9.0', '0.9.1', '0.10.0', '0.10.2']);
const docsPlace = bundled(esbuild('https://docs.example.dev'), true)(docs);
const billing = new App('billing-portal', ['5.0.0', '5.0.1', '5.1.0', '5.2.0']);
const billingPlace = bundled(webpack5('https://billing.example.com'), true)(billing);
const status = new App('status-page', ['1.4.0', '1.4.1', '1.5.0']);
const statusPlace = bundled(parcel('https://status.example.org'), false)(status);
const widget = new App('embed-widget', ['2.0.3', '2.0.4', '2.1.0', '2.1.1']);
/** Served from a CDN to customers' sites; the query names the release date and the customer's key. */
const widgetPlace = bundled(
  () => 'https://cdn.example.net/widget/v2/widget.js',
  false,
  (release, rng) => `?v=202505${10 + release}&key=pk_live_${rng.base62(12)}`,
)(widget);
const store = new App('store-next', ['14.1.0', '14.1.2', '14.2.0']);

/** Next.js App Router after symbolication: every route's component lives in `app/<route>/page.tsx`. */
function nextPlace(release: number): RenderOptions['place'] {
  return (s, line, col) => ({ filename: s.file, lineno: line + (s.vendor ? 0 : store.shift(release, s.file)), colno: col });
}

const BUGS: BrowserBug[] = [
  {
    id: 'alert-rules-threshold',
    count: [8, 18],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    sites: [
      site('index', 2210, 15, { fn: 'loadRoute', cls: 'Router' }),
      site('AlertRules', 141, 22, { fn: 'renderThresholds', cls: 'AlertRulesView' }),
      site('AlertRules', 88, 36, { fn: 'formatThreshold' }),
    ],
    error: { kind: 'read', obj: 'rule.threshold', prop: 'toFixed', nullish: 'undefined' },
  },
  {
    id: 'date-picker-parse-input',
    count: [5, 12],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    sites: [
      site('date-picker', 60, 9, { receiver: 'HTMLInputElement', enclosing: 'attach' }),
      site('date-picker', 112, 20, { fn: 'parseInput' }),
      site('date-picker', 131, 17, { fn: 'parseDate' }),
    ],
    error: { kind: 'read', obj: 'parts', prop: 'length', nullish: 'null' },
  },
  {
    // A copy of the date picker's code in another chunk: same names, another file, another bug.
    id: 'date-range-parse-input',
    count: [4, 10],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    sites: [
      site('date-range', 60, 9, { receiver: 'HTMLInputElement', enclosing: 'attach' }),
      site('date-range', 118, 20, { fn: 'parseInput' }),
      site('date-range', 140, 17, { fn: 'parseDate' }),
    ],
    error: { kind: 'read', obj: 'parts', prop: 'length', nullish: 'null' },
  },
  {
    id: 'account-settings-plan',
    count: [5, 11],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    sites: [
      site('index', 2210, 15, { fn: 'loadRoute', cls: 'Router' }),
      site('account-settings', 20, 5, { fn: 'init' }),
      site('account-settings', 47, 29, { fn: 'render' }),
    ],
    error: { kind: 'read', obj: 'account.plan', prop: 'name', nullish: 'undefined' },
  },
  {
    // `overview` and `settings` are 8 letters, like a Vite hash without digits.
    id: 'account-overview-plan',
    count: [4, 10],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    sites: [
      site('index', 2210, 15, { fn: 'loadRoute', cls: 'Router' }),
      site('account-overview', 20, 5, { fn: 'init' }),
      site('account-overview', 39, 29, { fn: 'render' }),
    ],
    error: { kind: 'read', obj: 'account.plan', prop: 'name', nullish: 'undefined' },
  },
  {
    id: 'settings-view-transition',
    count: [3, 9],
    app: alerts,
    sdk: SENTRY_BROWSER,
    place: alertsPlace,
    browsers: [
      ['firefox', 2],
      ['safari', 3],
    ],
    sites: [site('settings', 75, 31, { receiver: 'HTMLButtonElement', enclosing: 'bindThemeToggle' }), site('settings', 90, 14, { fn: 'toggleTheme' })],
    error: { kind: 'notFunction', callee: 'document.startViewTransition' },
  },
  {
    id: 'crm-merge-contacts-email',
    count: [6, 15],
    app: crm,
    sdk: SENTRY_BROWSER,
    place: crmPlace,
    sites: [
      site('main', 310, 40, { receiver: 'HTMLButtonElement', enclosing: 'ContactToolbar' }),
      site('main', 512, 12, { fn: 'mergeSelected', cls: 'ContactList' }),
      site('main', 530, 31, { fn: 'mergeContacts' }),
    ],
    error: { kind: 'read', obj: 'b', prop: 'email', nullish: 'undefined' },
  },
  {
    id: 'crm-report-column-label',
    count: [5, 12],
    app: crm,
    sdk: SENTRY_BROWSER,
    place: crmPlace,
    sites: [
      site('main', 300, 18, { fn: 'onDrop', cls: 'ReportCanvas' }),
      site('853', 41, 10, { fn: 'addColumn', cls: 'ReportBuilder' }),
      site('853', 12, 33, { fn: 'columnLabel' }),
    ],
    error: { kind: 'read', obj: 'field', prop: 'label', nullish: 'undefined' },
  },
  {
    // webpack's lazy loading; the message names the chunk's URL, hash and all.
    id: 'crm-chunk-load-reports',
    count: [8, 18],
    app: crm,
    sdk: SENTRY_BROWSER,
    place: crmPlace,
    sites: [
      site('main', 298, 20, { fn: 'loadReports' }),
      site('main', 3, 1429, { fn: '__webpack_require__.e' }),
      site('main', 3, 1429, { builtin: 'Array.reduce' }),
      site('main', 3, 1450, { enclosing: '__webpack_require__.e' }),
      site('main', 3, 3210, { fn: '__webpack_require__.f.j' }),
    ],
    error: (_engine, release) => ({
      type: 'ChunkLoadError',
      value: `Loading chunk 853 failed.\n(error: ${webpackCra('https://crm.example.com')(crm, release, '853')})`,
    }),
  },
  {
    id: 'docs-search-tokenize',
    count: [5, 12],
    app: docs,
    sdk: SENTRY_BROWSER,
    place: docsPlace,
    sites: [
      site('main', 88, 12, { receiver: 'HTMLInputElement', enclosing: 'mountSearch' }),
      site('chunk#search', 140, 21, { fn: 'query', cls: 'SearchIndex' }),
      site('chunk#search', 35, 18, { fn: 'tokenize' }),
    ],
    error: { kind: 'read', obj: 'text', prop: 'toLowerCase', nullish: 'undefined' },
  },
  {
    id: 'docs-facade-socket',
    count: [4, 9],
    app: docs,
    sdk: SENTRY_BROWSER,
    place: docsPlace,
    sites: [site('main', 20, 3, { toplevel: true }), site('facade', 12, 14, { fn: 'connect', cls: 'Facade' }), site('facade', 30, 22, { fn: 'openSocket' })],
    error: { kind: 'read', obj: 'this.config', prop: 'url', nullish: 'undefined' },
  },
  {
    // date-fns inside webpack 5's path-named vendor chunk, called from the app's main chunk.
    id: 'billing-invoice-date-format',
    count: [6, 14],
    app: billing,
    sdk: SENTRY_BROWSER,
    place: billingPlace,
    sites: [
      site('main', 1220, 17, { fn: 'renderInvoiceRow' }),
      site('main', 1190, 10, { fn: 'formatDueDate' }),
      site('vendors-node_modules_date-fns_esm_format_index_js', 20, 11, { fn: 'format' }),
    ],
    error: (engine) => ({ type: 'RangeError', value: engine === 'gecko' ? 'invalid date' : engine === 'jsc' ? 'Invalid Date' : 'Invalid time value' }),
  },
  {
    id: 'status-incidents-render',
    count: [4, 10],
    app: status,
    sdk: SENTRY_BROWSER,
    place: statusPlace,
    sites: [
      site('index', 14, 5, { fn: 'refresh' }),
      site('#shared', 402, 19, { fn: 'renderIncidents' }),
      site('#shared', 431, 24, { enclosing: 'renderIncidents' }),
    ],
    error: { kind: 'read', obj: 'incident.components', prop: 'join', nullish: 'undefined' },
  },
  {
    id: 'widget-mount-dataset',
    count: [8, 16],
    app: widget,
    sdk: SENTRY_BROWSER,
    place: widgetPlace,
    sites: [
      site('widget', 1510, 3, { toplevel: true }),
      site('widget', 240, 12, { fn: 'mount', cls: 'Widget' }),
      site('widget', 198, 35, { fn: 'readConfig' }),
    ],
    error: { kind: 'read', obj: 'el', prop: 'dataset', nullish: 'null' },
  },
  {
    id: 'next-cart-page-items',
    count: [6, 14],
    app: store,
    sdk: SENTRY_BROWSER,
    place: nextPlace,
    sites: [...REACT_RENDER, site('app/(shop)/cart/page.tsx', 18, 27, { fn: 'Page' })],
    error: { kind: 'read', obj: 'items', prop: 'map', nullish: 'undefined' },
  },
  {
    // Another route: same file name, component name, message and React frames.
    id: 'next-orders-page-items',
    count: [5, 12],
    app: store,
    sdk: SENTRY_BROWSER,
    place: nextPlace,
    sites: [...REACT_RENDER, site('app/(shop)/orders/page.tsx', 25, 27, { fn: 'Page' })],
    error: { kind: 'read', obj: 'items', prop: 'map', nullish: 'undefined' },
  },
];

export const jsBundles: Category = {
  name: CATEGORY,
  description:
    'Unsymbolicated bundle URLs whose content hashes change per release (webpack, Vite, esbuild, Parcel, Next.js), query strings, moving lines; word-like file names that must stay apart',
  build: (): CorpusEntry[] => BUGS.flatMap((bug) => browserBug(CATEGORY, bug)),
};
