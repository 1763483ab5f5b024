// Go: closures named by position (`(*Server).handleOrders.func1` becomes `func2` when a closure is
// added above it; `go` statements' wrappers are `.func1` before Go 1.21 and `.gowrap1` after),
// library closures that renumber across versions (grpc's `serveStreams.func1.1` → `func2.1`), and
// two ways in: sentry-go (package in `module`, runtime frames filtered, in_app) and `debug.Stack()`
// text from a recover middleware shipped by a log forwarder (qualified names, `panic` /
// `runtime.gopanic`, `runtime.sigpanic`, `runtime/debug.Stack`, no in_app). Hard negatives: another
// nil dereference under the same closure; `*fmt.wrapError` chains that differ only in the
// database's message.
import { App, envelope, occurrences } from '../common.js';
import type { Random } from '../random.js';
import type { Category, CorpusEntry, CorpusException, CorpusFrame } from '../types.js';

const CATEGORY = 'go';

type GoVersion = '1.20' | '1.21' | '1.22';
type Via = 'sentry' | 'text';

/** `pkg` is the import path; `fn` the name within it (`(*Server).handle.func1`). */
interface GoSite {
  pkg: string;
  fn: string;
  file: string;
  line: number;
}

const g = (pkg: string, fn: string, file: string, line: number): GoSite => ({ pkg, fn, file, line });

const GOROOT = '/usr/local/go/src';
const APP = 'github.com/acme/shipping';

function goPath(site: GoSite, version: GoVersion): string {
  if (site.pkg.startsWith(APP)) return `/build/${site.pkg.slice(APP.length + 1)}/${site.file}`;
  if (!site.pkg.includes('.')) return `${GOROOT}/${site.pkg}/${site.file}`;
  return `/go/pkg/mod/${site.pkg.replace(/\/v\d+$/, '')}@${site.pkg.startsWith('google.golang.org/grpc') ? (version === '1.20' ? 'v1.56.3' : 'v1.62.1') : 'v5.0.12'}/${site.file}`;
}

function renderGo(sites: readonly GoSite[], via: Via, version: GoVersion): CorpusFrame[] {
  const frames: CorpusFrame[] = [];
  for (const site of sites) {
    const runtime = site.pkg === 'runtime' || site.pkg === 'runtime/debug';
    if (via === 'sentry' && (runtime || site.pkg.startsWith('github.com/getsentry/sentry-go'))) continue;
    const path = goPath(site, version);
    if (via === 'sentry') {
      frames.push({ function: site.fn, module: site.pkg, abs_path: path, lineno: site.line, in_app: site.pkg.startsWith(APP) });
    } else {
      // `panic(...)` is how Go 1.21+ prints runtime.gopanic in a traceback.
      const name = site.pkg === 'runtime' && site.fn === 'gopanic' && version !== '1.20' ? 'panic' : `${site.pkg}.${site.fn}`;
      frames.push({ function: name, filename: path, lineno: site.line });
    }
  }
  return frames;
}

const shipping = new App('shipping-api', ['1.14.0', '1.14.1', '1.15.0', '1.16.0']);

/** net/http and chi dispatching to a handler (oldest first). */
const HTTP = (version: GoVersion): GoSite[] => [
  g('net/http', '(*conn).serve', 'server.go', version === '1.20' ? 2009 : version === '1.21' ? 2039 : 2086),
  g('net/http', 'serverHandler.ServeHTTP', 'server.go', version === '1.20' ? 2947 : version === '1.21' ? 2938 : 3142),
  g('github.com/go-chi/chi/v5', '(*Mux).ServeHTTP', 'mux.go', 90),
  g('github.com/go-chi/chi/v5', '(*Mux).routeHTTP', 'mux.go', 444),
  g('net/http', 'HandlerFunc.ServeHTTP', 'server.go', version === '1.20' ? 2122 : version === '1.21' ? 2136 : 2171),
];

/** What a recovered nil dereference adds under the faulting frame: the panic, then the recover middleware calling debug.Stack (innermost last). */
const PANIC_NIL = (version: GoVersion): GoSite[] => [
  g('runtime', 'sigpanic', 'signal_unix.go', version === '1.20' ? 841 : 861),
  g('runtime', 'panicmem', 'panic.go', version === '1.20' ? 260 : 261),
  g('runtime', 'gopanic', 'panic.go', version === '1.20' ? 884 : version === '1.21' ? 920 : 770),
  g(`${APP}/internal/api`, 'recoverer.func1.1', 'middleware.go', 31),
  g('runtime/debug', 'Stack', 'stack.go', 24),
];

interface GoBug {
  id: string;
  count: readonly [number, number];
  via: Via;
  /** Sites and the error, given the Go version and release. */
  build: (version: GoVersion, release: number, rng: Random) => { sites: GoSite[]; exception: Omit<CorpusException, 'stacktrace'> };
}

function goBug(bug: GoBug): CorpusEntry[] {
  return occurrences(CATEGORY, bug.id, bug.count, (rng) => {
    const release = shipping.pickRelease(rng);
    const version: GoVersion = release < 2 ? rng.pick(['1.20', '1.21']) : rng.pick(['1.21', '1.22']);
    const { sites, exception } = bug.build(version, release, rng);
    const withFrames = (link: Omit<CorpusException, 'stacktrace'>): CorpusException => ({
      ...link,
      stacktrace: renderGo(sites, bug.via, version),
      ...(link.cause && { cause: withFrames(link.cause) }),
    });
    return envelope(rng, {
      release: shipping.release(release),
      platform: 'go',
      exception: withFrames(exception),
      tags: { runtime: `go${version}.${rng.int(0, 9)}` },
    });
  });
}

const nilDeref = { type: 'runtime.Error', value: 'runtime error: invalid memory address or nil pointer dereference' };

/** The orders handler's closure: one more closure above it from release 2 renames it. */
const ordersClosure = (release: number) => g(`${APP}/internal/api`, `(*Server).handleOrders.func${release < 2 ? 1 : 2}`, 'orders.go', 64 + 9 * release);

/** sentry-go's chain for an error wrapped twice with %w: every link has the capture site's frames. */
const wrapped = (outer: string, inner: string, driver: string): Omit<CorpusException, 'stacktrace'> => ({
  type: '*fmt.wrapError',
  value: `${outer}: ${inner}: pq: ${driver}`,
  cause: { type: '*fmt.wrapError', value: `${inner}: pq: ${driver}`, cause: { type: '*pq.Error', value: `pq: ${driver}` } },
});

const CREATE_INVOICE = (version: GoVersion): GoSite[] => [...HTTP(version), g(`${APP}/internal/api`, '(*InvoiceHandler).Create', 'invoices.go', 58)];

const BUGS: GoBug[] = [
  {
    id: 'orders-closure-nil-customer',
    count: [8, 18],
    via: 'sentry',
    build: (version, release) => ({
      sites: [...HTTP(version), ordersClosure(release), g(`${APP}/internal/orders`, '(*Customer).DiscountRate', 'customer.go', 42), ...PANIC_NIL(version)],
      exception: nilDeref,
    }),
  },
  {
    // The same closure; another nil receiver.
    id: 'orders-closure-nil-address',
    count: [5, 12],
    via: 'sentry',
    build: (version, release) => ({
      sites: [...HTTP(version), ordersClosure(release), g(`${APP}/internal/orders`, '(*Order).ShippingAddress', 'order.go', 77), ...PANIC_NIL(version)],
      exception: nilDeref,
    }),
  },
  {
    // The same panic seen through debug.Stack() text: qualified names, runtime frames kept.
    id: 'labels-render-nil-template',
    count: [6, 14],
    via: 'text',
    build: (version, release) => ({
      sites: [
        ...HTTP(version),
        g(`${APP}/internal/api`, `(*Server).handleLabel.func${release < 3 ? 1 : 2}`, 'labels.go', 33),
        g(`${APP}/internal/labels`, 'Render', 'render.go', 51),
        ...PANIC_NIL(version),
      ],
      exception: { ...nilDeref, type: 'panic' },
    }),
  },
  {
    // `go p.work(ctx, i)`: the wrapper is `.func1` before Go 1.21, `.gowrap1` since.
    id: 'pool-work-nil-map',
    count: [6, 14],
    via: 'text',
    build: (version) => ({
      sites: [
        g('runtime', 'goexit', 'asm_amd64.s', 1650),
        g(`${APP}/internal/jobs`, `(*Pool).Start.${version === '1.20' ? 'func1' : 'gowrap1'}`, 'pool.go', 40),
        g(`${APP}/internal/jobs`, '(*Pool).work', 'pool.go', 71),
        g(`${APP}/internal/jobs`, 'processJob', 'process.go', 25),
        g('runtime', 'mapassign_faststr', 'map_faststr.go', 205),
        g('runtime', 'gopanic', 'panic.go', version === '1.20' ? 884 : version === '1.21' ? 920 : 770),
        g(`${APP}/internal/jobs`, 'recoverJob', 'pool.go', 88),
        g('runtime/debug', 'Stack', 'stack.go', 24),
      ],
      exception: { type: 'panic', value: 'assignment to entry in nil map' },
    }),
  },
  {
    id: 'invoice-create-duplicate-number',
    count: [8, 16],
    via: 'sentry',
    build: (version) => ({
      sites: CREATE_INVOICE(version),
      exception: wrapped('create invoice', 'insert invoice', 'duplicate key value violates unique constraint "invoices_number_key"'),
    }),
  },
  {
    // The same capture site and wrapper types: only the database's message differs.
    id: 'invoice-create-unknown-customer',
    count: [5, 12],
    via: 'sentry',
    build: (version) => ({
      sites: CREATE_INVOICE(version),
      exception: wrapped(
        'create invoice',
        'insert invoice',
        'insert or update on table "invoices" violates foreign key constraint "invoices_customer_id_fkey"',
      ),
    }),
  },
  {
    id: 'tracking-status-timeout',
    count: [8, 18],
    via: 'sentry',
    build: (version, _release, rng) => ({
      sites: [
        ...HTTP(version),
        g(`${APP}/internal/api`, '(*TrackingHandler).Get', 'tracking.go', 29),
        g(`${APP}/internal/carriers`, '(*TrackingClient).Status', 'tracking_client.go', 66),
      ],
      exception: {
        type: '*url.Error',
        value: `Get "https://tracking.carrier.example/v1/parcels/1Z${rng.base62(4).toUpperCase()}${rng.digits(10)}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
      },
    }),
  },
  {
    // A config value a user wrote by hand, quoted back in the error (captured at startup).
    id: 'config-invalid-duration',
    count: [4, 10],
    via: 'sentry',
    build: (_version, _release, rng) => ({
      sites: [
        g('main', 'main', 'main.go', 31),
        g(`${APP}/internal/config`, 'Load', 'config.go', 58),
        g(`${APP}/internal/config`, 'parseTimeouts', 'config.go', 92),
      ],
      exception: {
        type: '*errors.errorString',
        value: `config: timeouts.upstream: time: invalid duration "${rng.pick(['5 minutes', '30 s', '1,5s', '10sec', '2m 30s'])}"`,
      },
    }),
  },
  {
    // gRPC server: its own closure is `serveStreams.func1.1` in v1.56 and `func2.1` in v1.62.
    id: 'rate-quote-nil-zone',
    count: [6, 14],
    via: 'sentry',
    build: (version) => ({
      sites: [
        g('google.golang.org/grpc', `(*Server).serveStreams.${version === '1.20' ? 'func1.1' : 'func2.1'}`, 'server.go', version === '1.20' ? 983 : 1029),
        g('google.golang.org/grpc', '(*Server).handleStream', 'server.go', version === '1.20' ? 1770 : 1740),
        g('google.golang.org/grpc', '(*Server).processUnaryRPC', 'server.go', version === '1.20' ? 1358 : 1379),
        g(`${APP}/internal/rpc`, '_RateService_Quote_Handler', 'rates_grpc.pb.go', 126),
        g(`${APP}/internal/rpc`, '(*RateService).Quote', 'rates.go', 38),
        g(`${APP}/internal/rates`, '(*Zone).Rate', 'zone.go', 19),
        ...PANIC_NIL(version),
      ],
      exception: nilDeref,
    }),
  },
];

export const go: Category = {
  name: CATEGORY,
  description:
    'Go: closure indexes (`.func1` → `.func2`, `.gowrap1`), library closures by version, sentry-go vs debug.Stack() text (runtime.gopanic/panic, sigpanic), `*fmt.wrapError` chains',
  build: (): CorpusEntry[] => BUGS.flatMap(goBug),
};
