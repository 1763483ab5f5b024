// Node.js: V8 names (`Object.<anonymous>`, `Layer.handle [as handle_request]`, `Timeout._onTimeout`,
// `async Promise.all (index 1)`), the 10-frame default window, Node's own frames whose names and
// lines change with the Node version (`process.processTicksAndRejections (node:internal/process/task_queues:95:5)`,
// `Module._compile`, Node 22's `TracingChannel.traceSync`), node_modules frames, deploy paths that
// change per release, and two ways in: Sentry's Node SDK (module names, in_app set) and the OTLP
// `exceptions` connector (frames parsed from `error.stack`: no module, `async ` dropped).
// Hard negatives: the same async path crashing in another callee; ECONNREFUSED vs ETIMEDOUT to the
// same database with the same single internal frame; ENOENT for two different files (no frames).
import { App, envelope, occurrences } from '../common.js';
import { EXPRESS, INTERNALS, type NodeSite, type NodeVersion, nodeSite as s, renderNode, type Via } from '../nodejs.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry } from '../types.js';

const CATEGORY = 'node';

interface NodeBug {
  id: string;
  count: readonly [number, number];
  app: App;
  via: Via;
  versions: readonly NodeVersion[];
  /** Error.stackTraceLimit (10 unless the app raised it). */
  limit?: number;
  stack: (v: (typeof INTERNALS)[NodeVersion], rng: Random) => NodeSite[];
  error: (rng: Random, version: NodeVersion, root: string) => { type: string; value: string };
}

/** Where the app runs from: a release directory (Capistrano style) or a container's /app. */
function deployRoot(app: App, release: number): string {
  const stamp = 20250501080000 + release * 1_030_417 + app.build(release, 'deploy').int(0, 59);
  return app.name === 'orders-api' ? `/srv/${app.name}/releases/${stamp}` : '/app';
}

function nodeBug(bug: NodeBug): CorpusEntry[] {
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const release = bug.app.pickRelease(rng);
    const version = rng.pick(bug.versions);
    const sites = bug.stack(INTERNALS[version], rng);
    const root = deployRoot(bug.app, release);
    const frames = renderNode(sites, bug.via, root, bug.app, release, bug.limit, bug.app === jobs && release >= 2);
    const error = bug.error(rng, version, root);
    return envelope(rng, {
      release: bug.app.release(release),
      platform: 'node',
      exception: { ...error, ...(frames.length > 0 && { stacktrace: frames }) },
      tags: { runtime: `node v${version}.${rng.int(1, 14)}.${rng.int(0, 3)}` },
    });
  });
}

const orders = new App('orders-api', ['1.40.0', '1.40.1', '1.41.0', '1.42.0', '1.42.1']);
/** Runs with `node --enable-source-maps` from release 2 on: frames then name the TypeScript sources. */
const jobs = new App('jobs-worker', ['0.18.0', '0.18.1', '0.19.0', '0.20.0']);
const gateway = new App('api-gateway', ['3.2.0', '3.2.1', '3.3.0']);

const value = (type: string, text: string) => () => ({ type, value: text });

/** After an await: the caller waiting on it is an `async` frame, the resumed function a plain one. */
const PLACE_ASYNC = (crash: NodeSite) => (v: (typeof INTERNALS)[NodeVersion]) => [
  s('createOrder', 'dist/routes/orders.js', 41, 22, true),
  ...v.ticks,
  s('OrderService.place', 'dist/services/order-service.js', 77, 18),
  s('OrderService.priceLines', 'dist/services/order-service.js', 120, 9),
  crash,
];

const BUGS: NodeBug[] = [
  {
    id: 'orders-place-null-tier',
    count: [10, 20],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: PLACE_ASYNC(s('discountFor', 'dist/services/pricing.js', 33, 38)),
    error: value('TypeError', "Cannot read properties of null (reading 'tier')"),
  },
  {
    // The same request path and await chain; the crash is in another callee.
    id: 'orders-place-null-country',
    count: [5, 12],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: PLACE_ASYNC(s('shippingFor', 'dist/services/shipping.js', 18, 41)),
    error: value('TypeError', "Cannot read properties of null (reading 'country')"),
  },
  {
    id: 'orders-list-cursor-buffer',
    count: [6, 14],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: (v) => [...EXPRESS, s('listOrders', 'dist/routes/orders.js', 88, 20), s('decodeCursor', 'dist/lib/cursor.js', 6, 24), ...v.buffer],
    error: value(
      'TypeError',
      'The first argument must be of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object. Received undefined',
    ),
  },
  {
    id: 'orders-config-missing-env',
    count: [6, 12],
    app: orders,
    via: 'sentry',
    versions: [18, 20, 22],
    stack: (v) => [
      ...v.main,
      s('Object.<anonymous>', 'dist/server.js', 3, 16),
      ...v.require,
      s('Object.<anonymous>', 'dist/config.js', 9, 20),
      s('requireEnv', 'dist/config.js', 4, 11),
    ],
    error: value('Error', 'Missing required environment variable DATABASE_URL'),
  },
  {
    id: 'orders-db-connect-refused',
    count: [8, 18],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: (v) => v.net,
    error: (rng) => ({ type: 'Error', value: `connect ECONNREFUSED 10.0.3.${rng.pick([17, 18, 21])}:5432` }),
  },
  {
    // Same single frame, same target: a timeout is another failure than a refusal.
    id: 'orders-db-connect-timeout',
    count: [5, 12],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: (v) => v.net,
    error: (rng) => ({ type: 'Error', value: `connect ETIMEDOUT 10.0.3.${rng.pick([17, 18, 21])}:5432` }),
  },
  {
    // fs errors carry no stack: only the message, with the release directory in the path.
    id: 'orders-invoice-template-missing',
    count: [5, 12],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: () => [],
    error: (_rng, _version, root) => ({ type: 'Error', value: `ENOENT: no such file or directory, open '${root}/templates/invoice.hbs'` }),
  },
  {
    id: 'orders-receipt-template-missing',
    count: [3, 8],
    app: orders,
    via: 'sentry',
    versions: [18, 20],
    stack: () => [],
    error: (_rng, _version, root) => ({ type: 'Error', value: `ENOENT: no such file or directory, open '${root}/templates/receipt.hbs'` }),
  },
  {
    // body-parser rejecting a client's malformed JSON: V8's wording changed between Node 18 and 20.
    id: 'gateway-body-parser-json',
    count: [8, 18],
    app: gateway,
    via: 'sentry',
    versions: [18, 20, 22],
    stack: (v) => [
      ...v.streamEnd,
      s('IncomingMessage.onEnd', 'node_modules/raw-body/index.js', 287, 7),
      s('done', 'node_modules/raw-body/index.js', 227, 7),
      s('invokeCallback', 'node_modules/raw-body/index.js', 238, 16),
      s(undefined, 'node_modules/body-parser/lib/read.js', 130, 18),
      s('parse', 'node_modules/body-parser/lib/types/json.js', 92, 19),
      s('JSON.parse', '<anonymous>'),
    ],
    error: (rng, version) => {
      const position = rng.int(2, 400);
      const text =
        version === 18
          ? `Unexpected token } in JSON at position ${position}`
          : version === 20
            ? `Expected double-quoted property name in JSON at position ${position}`
            : `Expected double-quoted property name in JSON at position ${position} (line ${rng.int(1, 9)} column ${rng.int(1, 40)})`;
      return { type: 'SyntaxError', value: text };
    },
  },
  {
    id: 'gateway-rate-limit-redis-script',
    count: [4, 10],
    app: gateway,
    via: 'sentry',
    versions: [20, 22],
    stack: (v) => [
      s('rateLimit', 'dist/middleware/rate-limit.js', 30, 17, true),
      s('RedisStore.increment', 'node_modules/rate-limit-redis/dist/index.cjs', 132, 22, true),
      ...v.ticks,
      s('RedisStore.runScript', 'node_modules/rate-limit-redis/dist/index.cjs', 96, 24),
      s('parseScriptResponse', 'node_modules/rate-limit-redis/dist/index.cjs', 41, 11),
    ],
    error: value('TypeError', 'Expected result to be array of values'),
  },
  {
    id: 'gateway-export-string-length',
    count: [3, 8],
    app: gateway,
    via: 'sentry',
    versions: [20, 22],
    stack: () => [...EXPRESS, s('exportAuditLog', 'dist/routes/audit.js', 58, 25), s('JSON.stringify', '<anonymous>')],
    error: value('RangeError', 'Invalid string length'),
  },
  {
    // A promise rejected with a plain object: the SDK has no stack, only the object's keys.
    id: 'gateway-non-error-rejection',
    count: [6, 14],
    app: gateway,
    via: 'sentry',
    versions: [20, 22],
    stack: () => [],
    error: () => ({ type: 'UnhandledRejection', value: 'Non-Error promise rejection captured with keys: code, message, retryable' }),
  },
  {
    // A poller's timer callback parsing whatever the upstream answered.
    id: 'jobs-poll-queue-json',
    count: [8, 18],
    app: jobs,
    via: 'otlp',
    versions: [20, 22],
    stack: (v) => [...v.timers, s('Timeout._onTimeout', 'dist/poller.js', 22, 9), s('pollQueue', 'dist/poller.js', 47, 23), s('JSON.parse', '<anonymous>')],
    error: (rng) => ({
      type: 'SyntaxError',
      value: rng.pick([
        'Unexpected end of JSON input',
        `Unexpected token '<', "<html>\r\n<h"... is not valid JSON`,
        `Unexpected token 'u', "upstream c"... is not valid JSON`,
      ]),
    }),
  },
  {
    // `Promise.all` over several invoices: whichever fails first gives the index.
    id: 'jobs-sync-invoices-lines',
    count: [6, 14],
    app: jobs,
    via: 'otlp',
    versions: [20, 22],
    stack: (v, rng) => [
      s('Worker.processJob', 'node_modules/bullmq/dist/cjs/classes/worker.js', 455, 28, true),
      s('syncInvoices', 'dist/jobs/invoices.js', 12, 5, true),
      s('Promise.all', `index ${rng.int(0, 4)}`, undefined, undefined, true),
      ...v.ticks,
      s('syncInvoice', 'dist/jobs/invoices.js', 31, 40),
    ],
    error: value('TypeError', "Cannot read properties of undefined (reading 'lines')"),
  },
  {
    id: 'jobs-digest-preferences-get',
    count: [5, 12],
    app: jobs,
    via: 'otlp',
    versions: [20, 22],
    stack: (v) => [
      s('Worker.retryIfFailed', 'node_modules/bullmq/dist/cjs/classes/worker.js', 660, 24, true),
      s('Worker.processJob', 'node_modules/bullmq/dist/cjs/classes/worker.js', 455, 28, true),
      s('sendDigest', 'dist/jobs/digest.js', 19, 20, true),
      ...v.ticks,
      s('renderDigest', 'dist/jobs/digest.js', 54, 37),
    ],
    error: value('TypeError', 'user.preferences.get is not a function'),
  },
];

export const node: Category = {
  name: CATEGORY,
  description:
    "Node.js: V8 names, the 10-frame window, Node's internal frames by version, node_modules, deploy paths, Sentry SDK vs OTLP-parsed frames; frameless fs errors; same-frame network errors",
  build: (): CorpusEntry[] => BUGS.flatMap(nodeBug),
};
