// Python tracebacks (see ../python.ts): Django/DRF, Celery, FastAPI/Starlette and pandas frames
// from site-packages (in_app false) whose lines and functions change with library versions;
// `<lambda>`, `<genexpr>`, `<module>`, `<listcomp>` (a frame of its own until 3.12, inlined from
// 3.12), Jinja2 template frames; Python upgrades that move stdlib paths and, for an SDK reporting
// qualified names, rename every method (`get` → `CartView.get`). Hard negatives: the same
// DataFrame lookup failing on another column in another function; two signal handlers.
import { App, envelope, occurrences } from '../common.js';
import { py, type PyPlace, type PySite, pyType, renderPython, template, type PyVersion } from '../python.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'python';

interface PyApp {
  app: App;
  versions: (release: number) => readonly PyVersion[];
  place: Omit<PyPlace, 'version'>;
}

interface PyBug {
  id: string;
  count: readonly [number, number];
  on: PyApp;
  stack: (version: PyVersion, release: number, rng: Random) => PySite[];
  error: (rng: Random, version: PyVersion) => { type: string; value: string };
}

function pythonBug(bug: PyBug): CorpusEntry[] {
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const release = bug.on.app.pickRelease(rng);
    const version = rng.pick(bug.on.versions(release));
    const error = bug.error(rng, version);
    return envelope(rng, {
      release: bug.on.app.release(release),
      platform: 'python',
      exception: { ...pyType(error.type), value: error.value, stacktrace: renderPython(bug.stack(version, release, rng), { ...bug.on.place, version }) },
      tags: { runtime: `CPython ${version}.${rng.int(1, 9)}` },
    });
  });
}

const shop: PyApp = {
  app: new App('shop-api', ['2025.4.0', '2025.4.2', '2025.5.0', '2025.5.1', '2025.5.2']),
  versions: (release) => (release < 2 ? ['3.11'] : release < 4 ? ['3.11', '3.12'] : ['3.12']),
  place: { root: '/srv/shop-api', app: ['shop', 'manage'], sitePackages: '/srv/shop-api/.venv/lib/python{version}/site-packages' },
};
const worker: PyApp = {
  app: new App('shop-worker', ['2025.4.0', '2025.4.2', '2025.5.0', '2025.5.1']),
  // Moved from 3.10 to 3.11 (and to an SDK that reports qualified names) in release 2.
  versions: (release) => (release < 2 ? ['3.10'] : ['3.10', '3.11']),
  place: { root: '/app', app: ['worker', 'shop'], qualnames: true },
};
const pricing: PyApp = {
  app: new App('pricing-svc', ['0.8.0', '0.9.0', '0.9.1']),
  versions: () => ['3.12'],
  place: { root: '/app', app: ['pricing'] },
};
const etl: PyApp = {
  app: new App('etl-jobs', ['14', '15', '16']),
  versions: () => ['3.11'],
  place: { root: '/opt/etl', app: ['etl'] },
};

/** Django 4.2 / 5.0 and DRF dispatching to a view method (oldest first). */
const django = (release: number, view: string, method: string, line: number): PySite[] => [
  py('django.core.handlers.exception', 'inner', 55),
  py('django.core.handlers.base', '_get_response', 197),
  py('django.views.decorators.csrf', release < 3 ? 'wrapped_view' : '_view_wrapper', release < 3 ? 54 : 65),
  py('django.views.generic.base', 'view', 104),
  py('rest_framework.views', 'dispatch', 509),
  py(
    view,
    method,
    line + 2 * release,
    false,
    `${view
      .split('.')
      .pop()!
      .replace(/^./, (c) => c.toUpperCase())}View.${method}`,
  ),
];

/** Celery 5.3 running a task (oldest first). */
const celery = (release: number): PySite[] => [
  py('celery.app.trace', 'trace_task', release < 2 ? 453 : 477, false, 'build_tracer.<locals>.trace_task'),
  py('celery.app.trace', '__protected_call__', release < 2 ? 736 : 760, false, 'Task.__protected_call__'),
];

/** Placing an order saves it; Django's Signal.send calls the receivers in a list comprehension. */
const orderSaved = (release: number): PySite[] => [
  ...django(release, 'shop.api.orders', 'post', 60),
  py('shop.orders.service', 'place', 88),
  py('django.db.models.base', 'save', 814),
  py('django.db.models.base', 'save_base', 892),
  py('django.dispatch.dispatcher', 'send', 176),
  py('django.dispatch.dispatcher', '<listcomp>', 177, true),
];

const BUGS: PyBug[] = [
  {
    id: 'cart-total-decimal-float',
    count: [8, 16],
    on: shop,
    stack: (_v, release) => [...django(release, 'shop.api.cart', 'get', 31), py('shop.cart.totals', 'compute', 22), py('shop.cart.totals', '<genexpr>', 23)],
    error: () => ({ type: 'TypeError', value: "unsupported operand type(s) for +: 'decimal.Decimal' and 'float'" }),
  },
  {
    id: 'coupon-best-missing-priority',
    count: [6, 14],
    on: shop,
    stack: (_v, release) => [
      ...django(release, 'shop.api.cart', 'post', 48),
      py('shop.cart.coupons', 'apply_best', 17),
      py('shop.cart.coupons', '<lambda>', 18),
    ],
    error: () => ({ type: 'KeyError', value: "'priority'" }),
  },
  {
    // A list comprehension's own frame until 3.12; inlined into export_rows after.
    id: 'orders-export-missing-customer',
    count: [8, 16],
    on: shop,
    stack: (_v, release) => [
      ...django(release, 'shop.api.exports', 'get', 20),
      py('shop.orders.export', 'export_rows', 40),
      py('shop.orders.export', '<listcomp>', 41, true),
    ],
    error: () => ({ type: 'AttributeError', value: "'NoneType' object has no attribute 'email'" }),
  },
  {
    id: 'orders-report-missing-total',
    count: [5, 12],
    on: shop,
    stack: (_v, release) => [
      ...django(release, 'shop.api.reports', 'get', 27),
      py('shop.orders.report', 'totals_by_day', 63),
      py('shop.orders.report', '<dictcomp>', 64, true),
    ],
    error: () => ({ type: 'AttributeError', value: "'NoneType' object has no attribute 'total'" }),
  },
  {
    // A management command run as a script: `<module>` frames at the bottom.
    id: 'reindex-command-empty-batch',
    count: [4, 9],
    on: shop,
    stack: () => [
      py('manage', '<module>', 22),
      py('manage', 'main', 18),
      py('django.core.management', 'execute_from_command_line', 442),
      py('django.core.management', 'execute', 436),
      py('django.core.management.base', 'run_from_argv', 413),
      py('django.core.management.base', 'execute', 459),
      py('shop.management.commands.reindex', 'handle', 35),
      py('shop.search.indexer', 'first_batch', 12),
    ],
    error: () => ({ type: 'IndexError', value: 'list index out of range' }),
  },
  {
    // Django's Signal.send dispatches with a list comprehension (its own frame before 3.12).
    id: 'order-saved-signal-lambda',
    count: [6, 14],
    on: shop,
    stack: (_v, release) => [...orderSaved(release), py('shop.orders.signals', '<lambda>', 14)],
    error: () => ({ type: 'AttributeError', value: "'Order' object has no attribute 'loyalty_account'" }),
  },
  {
    // Another handler on the same signal: another bug.
    id: 'order-saved-signal-webhook',
    count: [4, 10],
    on: shop,
    stack: (_v, release) => [...orderSaved(release), py('shop.webhooks.signals', 'order_saved', 31)],
    error: () => ({ type: 'AttributeError', value: "'NoneType' object has no attribute 'url'" }),
  },
  {
    // A Celery task rendering a Jinja2 template: the template's code is a frame too.
    id: 'receipt-template-undefined-name',
    count: [8, 16],
    on: worker,
    stack: (_v, release) => [
      ...celery(release),
      py('worker.tasks.receipts', 'send_receipt', 27, false, 'send_receipt'),
      py('worker.render', 'render_receipt', 14, false, 'Renderer.render_receipt'),
      py('jinja2.environment', 'render', 1304, false, 'Template.render'),
      py('jinja2.environment', 'handle_exception', 939, false, 'Environment.handle_exception'),
      template('templates/receipt.html', 'top-level template code', 12),
      py('jinja2.environment', 'getattr', 485, false, 'Environment.getattr'),
    ],
    error: () => ({ type: 'jinja2.exceptions.UndefinedError', value: "'None' has no attribute 'name'" }),
  },
  {
    id: 'inventory-sync-read-timeout',
    count: [8, 16],
    on: worker,
    stack: (version, release) => [
      ...celery(release),
      py('worker.tasks.inventory', 'sync_inventory', 40, false, 'sync_inventory'),
      py('shop.inventory.client', 'fetch_levels', 23, false, 'InventoryClient.fetch_levels'),
      py('requests.sessions', 'get', 602, false, 'Session.get'),
      py('requests.sessions', 'request', 589, false, 'Session.request'),
      py('requests.sessions', 'send', 703, false, 'Session.send'),
      py('requests.adapters', 'send', version === '3.10' ? 532 : 713, false, 'HTTPAdapter.send'),
    ],
    error: (rng) => ({
      type: 'requests.exceptions.ReadTimeout',
      value: `HTTPSConnectionPool(host='inventory.internal', port=443): Read timed out. (read timeout=${rng.pick([5, 5, 10])})`,
    }),
  },
  {
    // Celery gives up after its retries; the task's own frames are gone by then.
    id: 'inventory-sync-retries-exhausted',
    count: [5, 12],
    on: worker,
    stack: (_v, release) => [...celery(release), py('celery.app.task', 'retry', release < 2 ? 743 : 736, false, 'Task.retry')],
    error: (rng) => ({
      type: 'celery.exceptions.MaxRetriesExceededError',
      value: `Can't retry worker.tasks.inventory.sync_inventory[${rng.uuid()}] args:(${rng.int(1, 400)},) kwargs:{}`,
    }),
  },
  {
    id: 'quote-rule-division-by-zero',
    count: [6, 14],
    on: pricing,
    stack: (_v, release) => [
      py('starlette.routing', 'app', release < 1 ? 72 : 73),
      py('fastapi.routing', 'app', release < 1 ? 278 : 299),
      py('fastapi.routing', 'run_endpoint_function', release < 1 ? 191 : 212),
      py('pricing.api', 'quote', 41),
      py('pricing.rules', 'apply', 58),
      py('pricing.rules', 'per_unit', 77),
    ],
    error: () => ({ type: 'ZeroDivisionError', value: 'division by zero' }),
  },
  {
    id: 'quote-negative-quantity',
    count: [6, 14],
    on: pricing,
    stack: () => [
      py('starlette.routing', 'app', 73),
      py('fastapi.routing', 'app', 299),
      py('fastapi.routing', 'run_endpoint_function', 212),
      py('pricing.api', 'quote', 36),
      py('pydantic.main', '__init__', 193),
    ],
    error: (rng) => ({
      type: 'pydantic_core._pydantic_core.ValidationError',
      value: `1 validation error for Quote\nqty\n  Input should be greater than 0 [type=greater_than, input_value=${-rng.int(0, 9)}, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.${rng.int(6, 7)}/v/greater_than`,
    }),
  },
  {
    id: 'etl-orders-missing-customer-id',
    count: [6, 14],
    on: etl,
    stack: (_v, release) => [
      py('etl.cli', 'main', 30),
      py('etl.jobs.orders', 'run', 52),
      py('etl.jobs.orders', 'join_customers', 77),
      py('pandas.core.frame', '__getitem__', release < 2 ? 3893 : 4102),
      py('pandas.core.indexes.base', 'get_loc', release < 2 ? 3797 : 3812),
    ],
    error: () => ({ type: 'KeyError', value: "'customer_id'" }),
  },
  {
    // The same pandas lookup, another column, another step.
    id: 'etl-orders-missing-order-date',
    count: [4, 10],
    on: etl,
    stack: (_v, release) => [
      py('etl.cli', 'main', 30),
      py('etl.jobs.orders', 'run', 55),
      py('etl.jobs.orders', 'bucket_by_day', 96),
      py('pandas.core.frame', '__getitem__', release < 2 ? 3893 : 4102),
      py('pandas.core.indexes.base', 'get_loc', release < 2 ? 3797 : 3812),
    ],
    error: () => ({ type: 'KeyError', value: "'order_date'" }),
  },
];

export const python: Category = {
  name: CATEGORY,
  description:
    'Python tracebacks: site-packages frames by library version, `<lambda>`/`<genexpr>`/`<module>`, `<listcomp>` frames gone in 3.12, Jinja2 template frames, qualified names after an upgrade',
  build: (): CorpusEntry[] => BUGS.flatMap(pythonBug),
};
