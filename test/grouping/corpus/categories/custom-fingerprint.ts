// Events whose SDK sets `fingerprint`: the label follows the fingerprint's intent. One rule puts
// every database connection failure in one issue whatever the stack; `{{ default }}` plus a
// customer splits one stack per customer; a provider name groups payment failures by provider;
// one issue for every lazy chunk that failed to load, whichever route.
import { App, envelope, occurrences } from '../common.js';
import { browserTag, ENGINE_OF, type JsSite, pickBrowser, renderJs, SENTRY_BROWSER, symbolicated } from '../js.js';
import { py, type PySite, pyType, renderPython } from '../python.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'custom-fingerprint';

const api = new App('shop-api', ['2025.4.0', '2025.4.2', '2025.5.0', '2025.5.1', '2025.5.2']);
const web = new App('shop-web', ['3.8.0', '3.8.1', '3.9.0', '3.9.2', '3.10.0']);

const DJANGO: PySite[] = [
  py('django.core.handlers.exception', 'inner', 55),
  py('django.core.handlers.base', '_get_response', 197),
  py('django.views.generic.base', 'view', 104),
];

function pyEvent(rng: Random, type: string, value: string, stack: PySite[], fingerprint: string[]) {
  const release = api.pickRelease(rng);
  return envelope(rng, {
    release: api.release(release),
    platform: 'python',
    exception: { ...pyType(type), value, stacktrace: renderPython([...DJANGO, ...stack], { version: '3.11', root: '/srv/shop-api', app: ['shop'] }) },
    fingerprint,
  });
}

/** Where the app meets the database: each call site is a different stack. */
const DB_CALL_SITES: PySite[][] = [
  [py('shop.api.cart', 'get', 31), py('shop.cart.repository', 'load', 20)],
  [py('shop.api.orders', 'post', 60), py('shop.orders.service', 'place', 88), py('shop.orders.repository', 'insert', 41)],
  [py('shop.api.search', 'get', 15), py('shop.search.queries', 'facets', 72)],
  [py('shop.api.users', 'post', 31), py('shop.users.repository', 'save', 58)],
];
const DB_DRIVER: PySite[] = [
  py('django.db.backends.base.base', 'ensure_connection', 289),
  py('django.db.backends.postgresql.base', 'get_new_connection', 269),
  py('psycopg.connection', 'connect', 748),
];

/** Checkout with the same stack for every customer; the SDK adds the customer to split issues. */
const CHECKOUT: PySite[] = [py('shop.api.checkout', 'post', 48), py('shop.checkout.tax', 'compute', 33), py('shop.checkout.tax', 'rate_for', 61)];

const LAZY_ROUTES = [
  { chunk: 118, loader: 'loadAccount', file: 'src/routes/account.ts' },
  { chunk: 206, loader: 'loadOrders', file: 'src/routes/orders.ts' },
  { chunk: 853, loader: 'loadReports', file: 'src/routes/reports.ts' },
  { chunk: 977, loader: 'loadWishlist', file: 'src/routes/wishlist.ts' },
];

const BUGS: CorpusEntry[][] = [
  occurrences(CATEGORY, 'database-connection', [10, 18], (rng) => {
    const host = `db-${rng.int(1, 3)}.internal`;
    const failure = rng.pick([
      ['psycopg.OperationalError', `connection failed: connection to server at "${host}" (10.0.3.${rng.int(10, 30)}), port 5432 failed: Connection refused`],
      ['psycopg.OperationalError', `connection failed: connection to server at "${host}" (10.0.3.${rng.int(10, 30)}), port 5432 failed: timeout expired`],
      [
        'django.db.utils.OperationalError',
        'server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore or while processing the request.',
      ],
    ]);
    return pyEvent(rng, failure[0], failure[1], [...rng.pick(DB_CALL_SITES), ...DB_DRIVER], ['database-connection']);
  }),
  ...['acme-gmbh', 'globex'].map((customer) =>
    occurrences(CATEGORY, `tax-rate-missing-${customer}`, [5, 12], (rng) =>
      pyEvent(rng, 'KeyError', `'${rng.pick(['CH-ZH', 'CH-GE', 'DE-BY'])}'`, CHECKOUT, [rng.pick(['{{ default }}', '{{default}}']), customer]),
    ),
  ),
  ...['stripe', 'adyen'].map((provider) =>
    occurrences(CATEGORY, `payment-provider-${provider}`, [6, 14], (rng) => {
      const [type, value] = rng.pick([
        [
          'shop.payments.errors.ProviderError',
          `${provider} declined the request: ${rng.pick(['card_declined', 'processing_error', 'rate_limit'])} (${requestId(rng)})`,
        ],
        ['requests.exceptions.HTTPError', `502 Server Error: Bad Gateway for url: https://api.${provider}.example/v1/payments/${rng.base62(12)}`],
      ]);
      return pyEvent(
        rng,
        type,
        value,
        [
          py('shop.api.checkout', 'post', 48),
          py('shop.payments.service', 'capture', 71),
          py(`shop.payments.${provider}`, rng.pick(['charge', 'authorize']), 40),
        ],
        ['payment-provider', provider],
      );
    }),
  ),
  occurrences(CATEGORY, 'chunk-load-failure', [8, 16], (rng) => {
    const browser = pickBrowser(rng);
    const engine = ENGINE_OF[browser];
    const release = web.pickRelease(rng);
    const route = rng.pick(LAZY_ROUTES);
    const sites: JsSite[] = [
      { fn: 'navigate', cls: 'Router', file: 'src/router/navigate.ts', line: 30, col: 10 },
      { fn: route.loader, file: route.file, line: 5, col: 12 },
      { fn: 'loadChunk', file: 'src/lib/lazy.ts', line: 14, col: 9 },
    ];
    return envelope(rng, {
      release: web.release(release),
      platform: 'javascript',
      exception: {
        type: 'ChunkLoadError',
        value: `Loading chunk ${route.chunk} failed.\n(${rng.pick(['error', 'timeout'])}: https://shop.example.com/static/js/${route.chunk}.${rng.hex(8)}.chunk.js)`,
        stacktrace: renderJs(engine, sites, { place: symbolicated(web, release), inApp: SENTRY_BROWSER.inApp, anonymous: SENTRY_BROWSER.anonymous }),
      },
      fingerprint: ['chunk-load-failure'],
      tags: { browser: browserTag(rng, browser) },
    });
  }),
];

function requestId(rng: Random): string {
  return `req_${rng.base62(14)}`;
}

export const customFingerprint: Category = {
  name: CATEGORY,
  description:
    'Explicit `fingerprint` arrays: one issue across stacks (database connection, chunk loading), `{{ default }}` + customer splits, per-provider groups',
  build: (): CorpusEntry[] => BUGS.flat(),
};
