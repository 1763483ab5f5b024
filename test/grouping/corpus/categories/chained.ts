// Chained exceptions (`exception.cause`: the raised exception at the top, what it was raised from
// inside): Java's CompletionException and Spring's servlet wrappers, a three-level JDBC chain,
// Python's `raise … from` and SQLAlchemy's wrapping of the driver's error, JavaScript's
// `Error.cause`, a Node repository error wrapping Prisma's. Each pair of bugs shares the raised
// exception's type and frames and differs in what caused it (a timeout vs a stock error, a
// refused connection vs a read timeout, a unique vs a foreign-key violation); the last pair even
// shares the cause's type and frames, differing only in the cause's message.
import { App, envelope, occurrences } from '../common.js';
import { j, type JavaApp, type JavaSite, javaType, jvmRun, type JvmRun, renderJava, springMvc } from '../java.js';
import { type Engine, ENGINE_OF, browserTag, jsError, type JsErrorKind, type JsSite, pickBrowser, renderJs, SENTRY_BROWSER, symbolicated } from '../js.js';
import { INTERNALS, nodeSite as s, type NodeSite, renderNode } from '../nodejs.js';
import { py, type PySite, pyType, renderPython, type PyVersion } from '../python.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry, CorpusException } from '../types.js';

const CATEGORY = 'chained';

// ---------------------------------------------------------------------------------------------
// Java
// ---------------------------------------------------------------------------------------------

const checkout: JavaApp = {
  app: new App('checkout-service', ['4.2.0', '4.2.1', '4.3.0', '4.4.0']),
  sdk: 'sentry',
  jdks: (release) => (release < 2 ? [17] : [17, 21]),
  spring: () => 6,
};
const accounts: JavaApp = {
  app: new App('accounts-service', ['1.9.0', '1.9.4', '1.10.0']),
  sdk: 'sentry',
  jdks: () => [11, 17],
  spring: () => 5,
};

interface JavaLink {
  type: string;
  value: string;
  stack: JavaSite[];
}

function javaChain(
  on: JavaApp,
  id: string,
  count: readonly [number, number],
  chain: (run: JvmRun, rng: Random, inflated: boolean) => JavaLink[],
): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const release = on.app.pickRelease(rng);
    const run = jvmRun(on, release, rng);
    const links = chain(run, rng, rng.chance(0.7));
    let exception: CorpusException | undefined;
    for (const link of [...links].reverse()) {
      exception = {
        ...javaType(link.type, on.sdk),
        value: link.value,
        stacktrace: renderJava(link.stack, on.sdk, run.jdk),
        ...(exception && { cause: exception }),
      };
    }
    return envelope(rng, { release: on.app.release(release), platform: 'java', exception: exception!, tags: { jvm: `${run.jdk}.0.${rng.int(1, 12)}` } });
  });
}

const jdkLine = (run: JvmRun, lines: Record<11 | 17 | 21 | 8, number>) => lines[run.jdk];

/** `CheckoutService.confirm` joining the future that reserves stock (the raised exception's frames). */
const confirmJoin = (run: JvmRun, inflated: boolean): JavaSite[] => [
  ...springMvc(6, run, inflated),
  j('com.acme.checkout.web.CheckoutController', 'confirm', 52),
  j('com.acme.checkout.CheckoutService', 'confirm', 88),
  j('java.util.concurrent.CompletableFuture', 'join', jdkLine(run, { 8: 1947, 11: 2043, 17: 2117, 21: 2135 })),
  j('java.util.concurrent.CompletableFuture', 'reportJoin', jdkLine(run, { 8: 375, 11: 412, 17: 413, 21: 428 })),
];

/** Spring MVC wrapping whatever the controller threw (Spring 5: NestedServletException). */
const servletWrapper = (run: JvmRun, inflated: boolean, cause: string, causeValue: string, controller: JavaSite[]): JavaLink[] => {
  const mvc = springMvc(5, run, inflated);
  const processRequest = mvc.findIndex((site) => site.method === 'processRequest');
  return [
    {
      type: 'org.springframework.web.util.NestedServletException',
      value: `Request processing failed; nested exception is ${cause}${causeValue ? `: ${causeValue}` : ''}`,
      stack: mvc.slice(0, processRequest + 1),
    },
    { type: cause, value: causeValue, stack: [...mvc, ...controller] },
  ];
};

const JAVA_BUGS: CorpusEntry[][] = [
  javaChain(checkout, 'checkout-confirm-timeout', [6, 12], (run, _rng, inflated) => [
    { type: 'java.util.concurrent.CompletionException', value: 'java.util.concurrent.TimeoutException', stack: confirmJoin(run, inflated) },
    {
      type: 'java.util.concurrent.TimeoutException',
      value: '',
      stack: [
        j('java.lang.Thread', 'run', jdkLine(run, { 8: 750, 11: 829, 17: 840, 21: 1583 })),
        j('java.util.concurrent.ThreadPoolExecutor$Worker', 'run', jdkLine(run, { 8: 624, 11: 628, 17: 635, 21: 642 })),
        j('java.util.concurrent.ThreadPoolExecutor', 'runWorker', jdkLine(run, { 8: 1149, 11: 1128, 17: 1136, 21: 1144 })),
        j('java.util.concurrent.ScheduledThreadPoolExecutor$ScheduledFutureTask', 'run', 304),
        j('java.util.concurrent.FutureTask', 'run', jdkLine(run, { 8: 266, 11: 264, 17: 264, 21: 317 })),
        j('java.util.concurrent.Executors$RunnableAdapter', 'call', jdkLine(run, { 8: 511, 11: 515, 17: 539, 21: 572 })),
        j('java.util.concurrent.CompletableFuture$Timeout', 'run', jdkLine(run, { 8: 2792, 11: 2792, 17: 2874, 21: 2920 })),
      ],
    },
  ]),
  javaChain(checkout, 'checkout-confirm-insufficient-stock', [4, 10], (run, rng, inflated) => {
    const value = `Insufficient stock for SKU ${rng.int(1000, 9999)}-${rng.pick(['BLK', 'WHT', 'RED'])}-${rng.int(36, 46)}: requested ${rng.int(2, 5)}, available ${rng.int(0, 1)}`;
    return [
      { type: 'java.util.concurrent.CompletionException', value: `java.lang.IllegalStateException: ${value}`, stack: confirmJoin(run, inflated) },
      {
        type: 'java.lang.IllegalStateException',
        value,
        stack: [
          j('java.util.concurrent.ForkJoinWorkerThread', 'run', jdkLine(run, { 8: 175, 11: 183, 17: 165, 21: 188 })),
          j('java.util.concurrent.ForkJoinPool', 'runWorker', jdkLine(run, { 8: 1692, 11: 1603, 17: 1622, 21: 1689 })),
          j('java.util.concurrent.ForkJoinPool$WorkQueue', 'topLevelExec', jdkLine(run, { 8: 1067, 11: 1020, 17: 1165, 21: 1312 })),
          j('java.util.concurrent.CompletableFuture$AsyncSupply', 'exec', jdkLine(run, { 8: 1582, 11: 1692, 17: 1760, 21: 1780 })),
          j('java.util.concurrent.CompletableFuture$AsyncSupply', 'run', jdkLine(run, { 8: 1590, 11: 1700, 17: 1768, 21: 1768 })),
          j('com.acme.checkout.CheckoutService', 'lambda$confirm$0', 81),
          j('com.acme.checkout.inventory.InventoryClient', 'reserve', 47),
        ],
      },
    ];
  }),
  javaChain(accounts, 'profile-update-npe', [4, 10], (run, _rng, inflated) =>
    servletWrapper(
      run,
      inflated,
      'java.lang.NullPointerException',
      run.jdk >= 17 ? 'Cannot invoke "String.trim()" because "request.displayName" is null' : '',
      [j('com.acme.accounts.web.ProfileController', 'update', 61), j('com.acme.accounts.profile.ProfileService', 'apply', 34)],
    ),
  ),
  javaChain(accounts, 'search-page-number-format', [3, 9], (run, rng, inflated) =>
    servletWrapper(run, inflated, 'java.lang.NumberFormatException', `For input string: "${rng.pick(['NaN', 'undefined', '2 ', '1e3', 'null'])}"`, [
      j('com.acme.accounts.web.SearchController', 'search', 40),
      j('java.lang.Integer', 'parseInt', jdkLine(run, { 8: 615, 11: 652, 17: 652, 21: 662 })),
      j('java.lang.NumberFormatException', 'forInputString', jdkLine(run, { 8: 65, 11: 65, 17: 67, 21: 67 })),
    ]),
  ),
  javaChain(accounts, 'audit-export-pool-exhausted', [4, 10], (run, rng, inflated) => {
    const waited = `HikariPool-1 - Connection is not available, request timed out after ${rng.int(30_000, 30_020)}ms.`;
    const base = [
      ...springMvc(5, run, inflated),
      j('com.acme.accounts.web.AuditController', 'export', 77),
      j('com.acme.accounts.audit.AuditService', 'exportRange', 112),
    ];
    const hibernate = [
      ...base,
      j('org.springframework.orm.jpa.JpaTransactionManager', 'doBegin', 467),
      j('org.hibernate.internal.AbstractSharedSessionContract', 'beginTransaction', 503),
      j('org.hibernate.engine.jdbc.internal.LogicalConnectionManagedImpl', 'acquireConnectionIfNeeded', 113),
      j('org.hibernate.engine.jdbc.connections.internal.DatasourceConnectionProviderImpl', 'getConnection', 122),
    ];
    return [
      {
        type: 'org.springframework.transaction.CannotCreateTransactionException',
        value:
          'Could not open JPA EntityManager for transaction; nested exception is org.hibernate.exception.JDBCConnectionException: Unable to acquire JDBC Connection',
        stack: [...base, j('org.springframework.orm.jpa.JpaTransactionManager', 'doBegin', 467)],
      },
      { type: 'org.hibernate.exception.JDBCConnectionException', value: 'Unable to acquire JDBC Connection', stack: hibernate },
      {
        type: 'java.sql.SQLTransientConnectionException',
        value: waited,
        stack: [
          ...hibernate,
          j('com.zaxxer.hikari.HikariDataSource', 'getConnection', 128),
          j('com.zaxxer.hikari.pool.HikariPool', 'getConnection', 181),
          j('com.zaxxer.hikari.pool.HikariPool', 'createTimeoutException', 696),
        ],
      },
    ];
  }),
];

// ---------------------------------------------------------------------------------------------
// Python
// ---------------------------------------------------------------------------------------------

const shopApi = new App('shop-api', ['2025.5.0', '2025.5.1', '2025.5.2', '2025.6.0']);

interface PyLink {
  type: string;
  value: string;
  stack: PySite[];
}

function pythonChain(id: string, count: readonly [number, number], chain: (rng: Random) => PyLink[]): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const release = shopApi.pickRelease(rng);
    const version: PyVersion = rng.pick(['3.11', '3.12']);
    const place = { version, root: '/srv/shop-api', app: ['shop'] };
    let exception: CorpusException | undefined;
    for (const link of [...chain(rng)].reverse()) {
      exception = { ...pyType(link.type), value: link.value, stacktrace: renderPython(link.stack, place), ...(exception && { cause: exception }) };
    }
    return envelope(rng, {
      release: shopApi.release(release),
      platform: 'python',
      exception: exception!,
      tags: { runtime: `CPython ${version}.${rng.int(1, 9)}` },
    });
  });
}

const DJANGO: PySite[] = [
  py('django.core.handlers.exception', 'inner', 55),
  py('django.core.handlers.base', '_get_response', 197),
  py('django.views.decorators.csrf', '_view_wrapper', 65),
  py('django.views.generic.base', 'view', 104),
  py('rest_framework.views', 'dispatch', 509),
];

const REQUESTS_POST: PySite[] = [
  py('requests.api', 'post', 115),
  py('requests.api', 'request', 59),
  py('requests.sessions', 'request', 589),
  py('requests.sessions', 'send', 703),
];

const capture = (): PySite[] => [...DJANGO, py('shop.api.checkout', 'post', 48), py('shop.payments.service', 'capture', 71)];

const unavailable = (cause: PyLink): PyLink[] => [
  { type: 'shop.payments.errors.PaymentsUnavailable', value: 'payments provider unavailable', stack: [...capture(), py('shop.payments.client', 'charge', 92)] },
  cause,
];

const commitUser = (): PySite[] => [
  ...DJANGO,
  py('shop.api.users', 'post', 31),
  py('shop.users.repository', 'save', 58),
  py('sqlalchemy.orm.session', 'commit', 2017),
  py('sqlalchemy.orm.session', '_flush', 4352),
  py('sqlalchemy.engine.base', '_execute_context', 1843),
];

const driverError = (kind: string, value: string, rng: Random): PyLink[] => {
  const statement = `[SQL: INSERT INTO users (email, org_id, name) VALUES (%(email)s, %(org_id)s, %(name)s) RETURNING users.id]\n[parameters: {'email': '${rng.pick(['jane', 'li.wei', 'omar', 'ana.s'])}${rng.int(1, 99)}@example.com', 'org_id': ${rng.int(1, 9000)}, 'name': '${rng.pick(['Jane', 'Li', 'Omar', 'Ana'])}'}]`;
  return [
    {
      type: 'sqlalchemy.exc.IntegrityError',
      value: `(psycopg2.errors.${kind}) ${value}\n${statement}\n(Background on this error at: https://sqlalche.me/e/20/gkpj)`,
      stack: [...commitUser(), py('sqlalchemy.engine.base', '_handle_dbapi_exception', 2355), py('sqlalchemy.util.compat', 'raise_', 211)],
    },
    {
      type: `psycopg2.errors.${kind}`,
      value,
      stack: [py('sqlalchemy.engine.base', '_exec_single_context', 1967), py('sqlalchemy.engine.default', 'do_execute', 924)],
    },
  ];
};

const PYTHON_BUGS: CorpusEntry[][] = [
  pythonChain('payments-unavailable-connection-refused', [6, 12], (rng) =>
    unavailable({
      type: 'requests.exceptions.ConnectionError',
      value: `HTTPSConnectionPool(host='api.pay.example', port=443): Max retries exceeded with url: /v1/charges (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f${rng.hex(10)}>: Failed to establish a new connection: [Errno 111] Connection refused'))`,
      stack: [py('shop.payments.client', 'charge', 84), ...REQUESTS_POST, py('requests.adapters', 'send', 700)],
    }),
  ),
  pythonChain('payments-unavailable-read-timeout', [4, 10], (rng) =>
    unavailable({
      type: 'requests.exceptions.ReadTimeout',
      value: `HTTPSConnectionPool(host='api.pay.example', port=443): Read timed out. (read timeout=${rng.pick([10, 10, 15])})`,
      stack: [py('shop.payments.client', 'charge', 84), ...REQUESTS_POST, py('requests.adapters', 'send', 713)],
    }),
  ),
  pythonChain('signup-duplicate-email', [6, 12], (rng) =>
    driverError(
      'UniqueViolation',
      `duplicate key value violates unique constraint "users_email_key"\nDETAIL:  Key (email)=(user${rng.int(1, 9999)}@example.com) already exists.\n`,
      rng,
    ),
  ),
  pythonChain('signup-missing-org', [3, 9], (rng) =>
    driverError(
      'ForeignKeyViolation',
      `insert or update on table "users" violates foreign key constraint "users_org_id_fkey"\nDETAIL:  Key (org_id)=(${rng.int(1, 9000)}) is not present in table "orgs".\n`,
      rng,
    ),
  ),
];

// ---------------------------------------------------------------------------------------------
// JavaScript (browser) and Node
// ---------------------------------------------------------------------------------------------

const shop = new App('shop-web', ['3.8.0', '3.8.1', '3.9.0', '3.9.2', '3.10.0']);

const LOAD_ORDER: JsSite[] = [
  { fn: 'mount', cls: 'OrderPage', file: 'src/orders/page.ts', line: 20, col: 16, awaited: true },
  { fn: 'loadOrder', file: 'src/orders/api.ts', line: 41, col: 11 },
];

/** `throw new Error(\`Failed to load order ${id}\`, { cause })`; the cause from `fetchJson`. */
function orderLoadChain(id: string, count: readonly [number, number], cause: JsErrorKind, causeSites: JsSite[]): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const browser = pickBrowser(rng);
    const engine: Engine = ENGINE_OF[browser];
    const release = shop.pickRelease(rng);
    const options = { place: symbolicated(shop, release), inApp: SENTRY_BROWSER.inApp, anonymous: SENTRY_BROWSER.anonymous };
    const causeFrames = renderJs(engine, causeSites, options);
    const causeError = jsError(engine, cause);
    // Firefox and Safari give network errors no stack; a rejected `response.json()` has none anywhere.
    const stackless = cause.kind === 'jsonHtml' || (cause.kind === 'fetch' && engine !== 'v8');
    return envelope(rng, {
      release: shop.release(release),
      platform: 'javascript',
      exception: {
        type: 'Error',
        value: `Failed to load order ${rng.int(10_000, 99_999)}`,
        stacktrace: renderJs(engine, LOAD_ORDER, options),
        cause: { ...causeError, ...(!stackless && causeFrames.length > 0 && { stacktrace: causeFrames }) },
      },
      tags: { browser: browserTag(rng, browser) },
    });
  });
}

const fulfilment = new App('fulfilment-api', ['0.31.0', '0.31.1', '0.32.0']);

/** Prisma's minified runtime: its class names change with the Prisma version. */
const prisma = (cls: string): NodeSite[] => [
  s('OrderRepository.save', 'dist/repositories/order-repository.js', 27, 44, true),
  s(`${cls}.request`, 'node_modules/@prisma/client/runtime/library.js', 121, 7890, true),
  s(`${cls}.handleAndLogRequestError`, 'node_modules/@prisma/client/runtime/library.js', 121, 7142),
  s(`${cls}.handleRequestError`, 'node_modules/@prisma/client/runtime/library.js', 121, 7315),
];

function repositoryChain(id: string, count: readonly [number, number], message: (rng: Random) => string): CorpusEntry[] {
  return occurrences(CATEGORY, id, count, (rng) => {
    const release = fulfilment.pickRelease(rng);
    const version = rng.pick([20, 22] as const);
    const root = '/app';
    const outer = [
      s('createShipment', 'dist/routes/shipments.js', 19, 25, true),
      ...INTERNALS[version].ticks,
      s('OrderRepository.save', 'dist/repositories/order-repository.js', 31, 13),
    ];
    const runtime = release < 2 ? 'Pn' : 'ei';
    return envelope(rng, {
      release: fulfilment.release(release),
      platform: 'node',
      exception: {
        type: 'OrderRepositoryError',
        value: 'could not save order',
        stacktrace: renderNode(outer, 'sentry', root, fulfilment, release),
        cause: {
          type: 'PrismaClientKnownRequestError',
          value: `\nInvalid \`prisma.order.create()\` invocation in\n${root}/dist/repositories/order-repository.js:27:44\n\n${message(rng)}`,
          stacktrace: renderNode(prisma(runtime), 'sentry', root, fulfilment, release),
        },
      },
      tags: { runtime: `node v${version}.${rng.int(1, 14)}.0` },
    });
  });
}

const JS_BUGS: CorpusEntry[][] = [
  orderLoadChain('order-load-network', [6, 12], { kind: 'fetch' }, [...LOAD_ORDER, { fn: 'fetchJson', file: 'src/lib/http.ts', line: 9, col: 25 }]),
  orderLoadChain('order-load-html-response', [4, 10], { kind: 'jsonHtml' }, []),
  repositoryChain('shipment-save-duplicate-external-id', [4, 10], () => 'Unique constraint failed on the fields: (`external_id`)'),
  // Same raised exception, same cause type and frames: only the cause's message tells them apart.
  repositoryChain('shipment-save-missing-order', [3, 8], () => 'Foreign key constraint failed on the field: `shipments_order_id_fkey (index)`'),
];

export const chained: Category = {
  name: CATEGORY,
  description:
    'Exception chains (`exception.cause`): the same raised exception and frames over different causes (timeout vs stock error, refused vs timed out, unique vs foreign key), 3-level JDBC chains, varying values',
  build: (): CorpusEntry[] => [...JAVA_BUGS, ...PYTHON_BUGS, ...JS_BUGS].flat(),
};
