// The same bug from Chrome, Edge, Firefox and Safari, after symbolication: each engine names
// methods, listeners, nested and anonymous functions its own way, adds or omits builtin and async
// frames, keeps a different number of frames, reports other columns, and words the message its
// own way. Hard negatives: different bugs on the same path (another crashing callee), and two
// React components failing with the same message under the same React frames.
import { App } from '../common.js';
import { type BrowserBug, browserBug, type JsSite, PLAIN_SDK, REACT_CLICK, REACT_RENDER, SENTRY_BROWSER } from '../js.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'js-cross-browser';

/** A storefront in TypeScript (classes, DOM listeners), Sentry's browser SDK. */
const shop = new App('shop-web', ['3.8.0', '3.8.1', '3.9.0', '3.9.2', '3.10.0']);
/** A React admin app, reporting through an SDK that leaves in_app to the server. */
const admin = new App('admin-console', ['1.22.0', '1.22.3', '1.23.0', '1.24.0']);

const site = (file: string, line: number, col: number, fields: Omit<JsSite, 'file' | 'line' | 'col'> = {}): JsSite => ({ ...fields, file, line, col });

const CHECKOUT_LISTENER = site('src/checkout/init.ts', 41, 25, { receiver: 'HTMLButtonElement', enclosing: 'initCheckout' });
const APPLY_COUPON = site('src/cart/store.ts', 88, 33, { fn: 'applyCoupon', cls: 'CheckoutStore' });

const BUGS: BrowserBug[] = [
  {
    id: 'apply-coupon-undefined-code',
    count: [8, 16],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [CHECKOUT_LISTENER, APPLY_COUPON, site('src/cart/coupons.ts', 17, 30, { fn: 'validateCoupon' })],
    error: { kind: 'read', obj: 'coupon', prop: 'code', nullish: 'undefined' },
  },
  {
    // Same listener and method: the crash is in another callee.
    id: 'apply-coupon-discount-amount',
    count: [4, 10],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [CHECKOUT_LISTENER, APPLY_COUPON, site('src/cart/discounts.ts', 52, 41, { fn: 'formatDiscount' })],
    error: { kind: 'read', obj: 'discount', prop: 'amount', nullish: 'undefined' },
  },
  {
    id: 'export-menu-serialize-rows',
    count: [6, 14],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [
      site('src/orders/export-menu.ts', 23, 47, { receiver: 'HTMLAnchorElement', enclosing: 'initExportMenu' }),
      site('src/orders/export.ts', 64, 16, { fn: 'exportCsv' }),
      site('src/orders/export.ts', 31, 10, { fn: 'serializeRows' }),
      site('src/orders/export.ts', 31, 10, { builtin: 'Array.forEach' }),
      site('src/orders/export.ts', 33, 37, { enclosing: 'serializeRows' }),
    ],
    error: { kind: 'read', obj: 'row.total', prop: 'toFixed', nullish: 'undefined' },
  },
  {
    id: 'export-menu-handler-settings',
    count: [3, 8],
    app: shop,
    sdk: SENTRY_BROWSER,
    // `menu.onselect = function () {…}` inside initExportMenu: Firefox names it by the assignment.
    sites: [
      site('src/orders/export-menu.ts', 37, 12, { receiver: 'HTMLSelectElement', names: { gecko: 'initExportMenu/menu.onselect' } }),
      site('src/orders/export-menu.ts', 45, 28, { fn: 'loadExportSettings' }),
    ],
    error: { kind: 'destructure', obj: 'settings', prop: 'delimiter' },
  },
  {
    id: 'cart-total-line-price',
    count: [8, 18],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [
      site('src/cart/view.ts', 120, 30, { fn: 'render', cls: 'CartView' }),
      site('src/cart/store.ts', 140, 35, { fn: 'total', cls: 'CheckoutStore' }),
      site('src/cart/store.ts', 140, 35, { builtin: 'Array.forEach' }),
      site('src/cart/store.ts', 141, 27, { enclosing: 'total' }),
    ],
    error: { kind: 'read', obj: 'item.price', prop: 'amount', nullish: 'undefined' },
  },
  {
    id: 'fetch-cart-html-response',
    count: [6, 14],
    app: shop,
    sdk: SENTRY_BROWSER,
    // After an await: V8 adds `async Promise.all (index 0)` and `async loadPage`; Firefox only with devtools open (`async*loadPage`), Safari never.
    sites: [
      site('src/pages/cart.ts', 12, 5, { fn: 'loadPage', awaited: true }),
      site('src/pages/cart.ts', 14, 9, { builtin: 'Promise.all', builtinFile: 'index 0', awaited: true }),
      site('src/api/cart.ts', 27, 17, { fn: 'fetchCart' }),
      site('src/api/cart.ts', 27, 17, { builtin: 'JSON.parse' }),
    ],
    error: { kind: 'jsonHtml' },
  },
  {
    id: 'fetch-wishlist-html-response',
    count: [3, 8],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [
      site('src/pages/cart.ts', 12, 5, { fn: 'loadPage', awaited: true }),
      site('src/pages/cart.ts', 15, 9, { builtin: 'Promise.all', builtinFile: 'index 1', awaited: true }),
      site('src/api/wishlist.ts', 19, 17, { fn: 'fetchWishlist' }),
      site('src/api/wishlist.ts', 19, 17, { builtin: 'JSON.parse' }),
    ],
    error: { kind: 'jsonHtml' },
  },
  {
    id: 'price-formatter-locale',
    count: [4, 9],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [
      site('src/cart/view.ts', 120, 30, { fn: 'render', cls: 'CartView' }),
      site('src/i18n/price.ts', 9, 22, { fn: 'PriceFormatter', ctor: true }),
      site('src/i18n/price.ts', 9, 22, { builtin: 'NumberFormat', names: { v8: 'new NumberFormat' } }),
    ],
    error: (engine) => ({
      type: 'RangeError',
      value: engine === 'gecko' ? 'invalid language tag: "de_CH"' : 'Incorrect locale information provided',
    }),
  },
  {
    // String.prototype.replaceAll is missing before Safari 13.1: only Safari reports it.
    id: 'search-highlight-replace-all',
    count: [3, 7],
    app: shop,
    sdk: SENTRY_BROWSER,
    browsers: [['safari', 1]],
    sites: [
      site('src/search/box.ts', 30, 19, { receiver: 'HTMLInputElement', enclosing: 'initSearch' }),
      site('src/search/box.ts', 58, 12, { fn: 'suggest', cls: 'SearchBox' }),
      site('src/search/highlight.ts', 6, 18, { fn: 'highlight' }),
    ],
    error: { kind: 'notFunction', callee: 'query.replaceAll' },
  },
  {
    id: 'settings-save-toast',
    count: [5, 12],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [site('src/account/settings.ts', 77, 14, { fn: 'save', cls: 'SettingsPage' }), site('src/ui/toast.ts', 21, 22, { fn: 'showToast' })],
    error: { kind: 'set', obj: 'toast', prop: 'textContent' },
  },
  {
    // Same page shape, other crashing callee.
    id: 'profile-save-errors',
    count: [3, 9],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [site('src/account/profile.ts', 63, 14, { fn: 'save', cls: 'ProfilePage' }), site('src/ui/form-errors.ts', 11, 25, { fn: 'renderErrors' })],
    error: { kind: 'set', obj: 'list', prop: 'innerHTML' },
  },
  {
    id: 'wizard-step-validate',
    count: [4, 10],
    app: shop,
    sdk: SENTRY_BROWSER,
    // A generator resumed by `next()`: V8 prints `steps.next (<anonymous>)`, Safari `next@[native code]`.
    sites: [
      site('src/onboarding/wizard.ts', 40, 31, { fn: 'advance', cls: 'Wizard' }),
      site('src/onboarding/wizard.ts', 40, 31, { builtin: 'steps.next' }),
      site('src/onboarding/steps.ts', 18, 20, { fn: 'steps' }),
    ],
    error: { kind: 'read', obj: 'step', prop: 'validate', nullish: 'undefined' },
  },
  {
    // An object-literal method: V8 prints `Object.trackSignup`.
    id: 'newsletter-gtag-missing',
    count: [6, 14],
    app: shop,
    sdk: SENTRY_BROWSER,
    sites: [
      site('src/newsletter/form.ts', 15, 27, { receiver: 'HTMLFormElement', enclosing: 'initNewsletter' }),
      site('src/analytics/index.ts', 33, 7, { fn: 'trackSignup', cls: 'Object' }),
    ],
    error: { kind: 'notDefined', name: 'gtag' },
  },
  {
    // Firefox and Safari give fetch's network errors no stack at all.
    id: 'newsletter-subscribe-network',
    count: [8, 16],
    app: shop,
    sdk: SENTRY_BROWSER,
    stackless: ['gecko', 'jsc'],
    sites: [
      site('src/newsletter/form.ts', 15, 27, { receiver: 'HTMLFormElement', enclosing: 'initNewsletter' }),
      site('src/newsletter/api.ts', 8, 23, { fn: 'subscribe' }),
    ],
    error: { kind: 'fetch' },
  },
  {
    id: 'orders-table-sort-compare',
    count: [4, 10],
    app: admin,
    sdk: PLAIN_SDK,
    sites: [
      ...REACT_CLICK,
      site('src/components/DataTable.tsx', 71, 18, { fn: 'onHeaderClick' }),
      site('src/components/DataTable.tsx', 49, 19, { fn: 'sortRows' }),
      site('src/components/DataTable.tsx', 49, 19, { builtin: 'Array.sort' }),
      site('src/components/DataTable.tsx', 50, 30, { enclosing: 'sortRows' }),
      site('src/components/compare.ts', 4, 21, { fn: 'compareValues' }),
    ],
    error: { kind: 'read', obj: 'a', prop: 'localeCompare', nullish: 'null' },
  },
  {
    id: 'chart-resize-observer',
    count: [4, 11],
    app: admin,
    sdk: PLAIN_SDK,
    sites: [
      site('src/charts/Chart.ts', 27, 41, { receiver: 'ResizeObserver', enclosing: 'observeSize' }),
      site('src/charts/Chart.ts', 90, 10, { fn: 'resize', cls: 'Chart' }),
      site('src/charts/Chart.ts', 112, 33, { fn: 'draw', cls: 'Chart' }),
    ],
    error: { kind: 'read', obj: 'this.canvas', prop: 'width', nullish: 'null' },
  },
  {
    id: 'order-list-items-map',
    count: [8, 18],
    app: admin,
    sdk: PLAIN_SDK,
    sites: [...REACT_RENDER, site('src/orders/OrderList.tsx', 22, 28, { fn: 'OrderList' })],
    error: { kind: 'read', obj: 'orders', prop: 'map', nullish: 'undefined' },
  },
  {
    // The same message under the same React frames, in another component: another bug.
    id: 'invoice-list-items-map',
    count: [5, 12],
    app: admin,
    sdk: PLAIN_SDK,
    sites: [...REACT_RENDER, site('src/billing/InvoiceList.tsx', 31, 26, { fn: 'InvoiceList' })],
    error: { kind: 'read', obj: 'invoices', prop: 'map', nullish: 'undefined' },
  },
  {
    id: 'autosave-circular-draft',
    count: [3, 9],
    app: admin,
    sdk: PLAIN_SDK,
    // A setTimeout callback: V8 gives no name, Firefox `scheduleAutosave/<`.
    sites: [
      site('src/editor/autosave.ts', 14, 20, { enclosing: 'scheduleAutosave' }),
      site('src/editor/autosave.ts', 30, 12, { fn: 'flush', cls: 'Autosave' }),
      site('src/editor/autosave.ts', 44, 24, { builtin: 'JSON.stringify' }),
    ],
    error: (engine) => ({
      type: 'TypeError',
      value:
        engine === 'gecko'
          ? 'cyclic object value'
          : engine === 'jsc'
            ? 'JSON.stringify cannot serialize cyclic structures.'
            : "Converting circular structure to JSON\n    --> starting at object with constructor 'HTMLDivElement'\n    |     property '__reactFiber$k3x9' -> object with constructor 'FiberNode'\n    --- property 'stateNode' closes the circle",
    }),
  },
];

export const jsCrossBrowser: Category = {
  name: CATEGORY,
  description:
    'One bug from Chrome/Edge (V8), Firefox and Safari: receiver-qualified vs bare names, `Foo/<` nesting, `new Foo`, builtin and async frames, frame limits, columns, messages',
  build: (): CorpusEntry[] => BUGS.flatMap((bug) => browserBug(CATEGORY, bug)),
};
