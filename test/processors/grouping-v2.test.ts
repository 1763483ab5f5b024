// Grouping version 2, category by category (issue #12): each test holds occurrences of one bug as
// different engines, builds and runs report it, and different bugs that must stay apart.
import { describe, expect, it } from 'vitest';
import type { ErrorEvent, ExceptionInfo, StackFrame } from '../../src/records/event.js';
import { computeGrouping, groupingHash } from '../../processors/grouping/fingerprint.js';
import { normalizeFilename } from '../../processors/grouping/names/files.js';
import { normalizeJavaScriptFunction } from '../../processors/grouping/names/javascript.js';
import { normalizeJvmClass, normalizeJvmMethod } from '../../processors/grouping/names/jvm.js';
import { parameterizeMessage } from '../../processors/grouping/names/messages.js';
import { normalizeNativeFunction } from '../../processors/grouping/names/native.js';
import { collapseCycles } from '../../processors/grouping/recursion.js';

function event(exception: ExceptionInfo, extra: Partial<ErrorEvent> = {}): ErrorEvent {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    timestamp: '2026-11-01T12:00:00.000Z',
    environment: 'production',
    release: 'web@1.0.0',
    level: 'error',
    exception,
    project_id: 'p',
    received_at: '2026-11-01T12:00:01.000Z',
    processing_errors: [],
    ...extra,
  };
}

const hashOf = (e: ErrorEvent) => computeGrouping(e).hash;
const distinct = (events: ErrorEvent[]) => new Set(events.map(hashOf)).size;

describe('cross-browser function names', () => {
  const bundle = (hash: string) => `https://shop.example.com/assets/index-${hash}.js`;
  const chrome: StackFrame[] = [
    { filename: bundle('oaDGsuMU'), function: 'initExportMenu', lineno: 10, colno: 5 },
    { filename: '<anonymous>', function: 'Array.forEach' },
    { filename: bundle('oaDGsuMU'), function: 'HTMLButtonElement.<anonymous>', lineno: 12, colno: 9 },
    { filename: bundle('oaDGsuMU'), function: 'CheckoutStore.applyCoupon', lineno: 40, colno: 17 },
  ];
  const firefox: StackFrame[] = [
    { filename: bundle('Bq2_x-9Z'), function: 'initExportMenu', lineno: 11, colno: 5 },
    { filename: bundle('Bq2_x-9Z'), function: 'initExportMenu/<', lineno: 13, colno: 10 },
    { filename: bundle('Bq2_x-9Z'), function: 'applyCoupon', lineno: 41, colno: 18 },
  ];
  const safari: StackFrame[] = [
    { filename: bundle('XcCpntAb'), function: 'initExportMenu', lineno: 10, colno: 5 },
    { filename: '[native code]', function: 'forEach' },
    { filename: bundle('XcCpntAb'), lineno: 12, colno: 9 },
    { filename: bundle('XcCpntAb'), function: 'applyCoupon', lineno: 40, colno: 17 },
  ];

  it('groups one bug reported by V8, SpiderMonkey and JavaScriptCore as one issue', () => {
    const events = [chrome, firefox, safari].map((stacktrace) => event({ type: 'TypeError', value: 'coupon is null', stacktrace }, { platform: 'javascript' }));
    expect(distinct(events)).toBe(1);
    expect(computeGrouping(events[0]).components).toEqual(['TypeError', 'assets/index:initExportMenu', 'assets/index:?', 'assets/index:applyCoupon']);
  });

  it('normalizes receivers, SpiderMonkey notation and JavaScriptCore top-level code', () => {
    expect(normalizeJavaScriptFunction('CheckoutStore.applyCoupon')).toBe('applyCoupon');
    expect(normalizeJavaScriptFunction('HTMLButtonElement.<anonymous>')).toBe('?');
    expect(normalizeJavaScriptFunction('initExportMenu/<')).toBe('?');
    expect(normalizeJavaScriptFunction('initExportMenu/handler')).toBe('handler');
    expect(normalizeJavaScriptFunction('walk*')).toBe('walk');
    expect(normalizeJavaScriptFunction('global code')).toBe('?');
    expect(normalizeJavaScriptFunction('Foo.bar [as baz]')).toBe('bar');
    expect(normalizeJavaScriptFunction('Object.<anonymous>')).toBe('<module>');
  });

  it('keeps different functions apart', () => {
    const other = firefox.map((f, i) => (i === 2 ? { ...f, function: 'removeCoupon' } : f));
    expect(distinct([event({ type: 'TypeError', value: 'x', stacktrace: firefox }), event({ type: 'TypeError', value: 'x', stacktrace: other })])).toBe(2);
  });
});

describe('generated and per-build names', () => {
  it('drops bundler hashes without digits but keeps words', () => {
    expect(normalizeFilename('https://cdn.example.com/assets/index-oaDGsuMU.js?v=3')).toBe('index.js');
    expect(normalizeFilename('AlertRules--XcCpntA.js')).toBe('AlertRules.js');
    expect(normalizeFilename('chunk-UBTAZZLR.js')).toBe('chunk.js');
    expect(normalizeFilename('main.4f3a2b1c.js')).toBe('main.js');
    expect(normalizeFilename('oaDGsuMU.js')).toBe('<hash>.js');
    for (const word of ['date-picker.js', 'user-settings.js', 'settings.js', 'UserList.js', 'useQuery.js', 'facade.js'])
      expect(normalizeFilename(word)).toBe(word);
  });

  it('groups Java frames across proxies, lambdas, reflection accessors and JDK versions', () => {
    const jdk8: StackFrame[] = [
      { module: 'java.lang.Thread', function: 'run' },
      { module: 'sun.reflect.NativeMethodAccessorImpl', function: 'invoke0' },
      { module: 'sun.reflect.GeneratedMethodAccessor123', function: 'invoke' },
      { module: 'com.shop.OrderService$$EnhancerBySpringCGLIB$$32e64f86', function: 'placeOrder' },
      { module: 'com.shop.OrderService$$Lambda$1581/0x00000008019b981c', function: 'apply' },
      { module: 'com.shop.OrderService', function: 'lambda$placeOrder$0' },
    ];
    const jdk21: StackFrame[] = [
      { module: 'java.base/java.lang.Thread', function: 'run' },
      { module: 'java.base/jdk.internal.reflect.DirectMethodHandleAccessor', function: 'invoke' },
      { module: 'com.shop.OrderService$$SpringCGLIB$$0', function: 'placeOrder' },
      { module: 'com.shop.OrderService', function: 'lambda$placeOrder$3' },
    ];
    const events = [jdk8, jdk21].map((stacktrace) => event({ type: 'java.lang.IllegalStateException', value: 'no stock', stacktrace }, { platform: 'java' }));
    expect(distinct(events)).toBe(1);
    expect(normalizeJvmClass('com.shop.Order$HibernateProxy$sk3Lj2xQ')).toBe('com.shop.Order');
    expect(normalizeJvmClass('com.shop.Order_$$_jvst1a2_3')).toBe('com.shop.Order');
    expect(normalizeJvmMethod('lambda$fetchAll$0')).toBe('lambda$fetchAll');
  });

  it('reads native names without parameter lists, per-build lambdas or anonymous-namespace spellings', () => {
    expect(normalizeNativeFunction('SceneGraph::update(double)')).toBe('SceneGraph::update');
    expect(normalizeNativeFunction('void __cdecl SceneGraph::update(double) const')).toBe('SceneGraph::update');
    expect(normalizeNativeFunction("`anonymous namespace'::<lambda_39a4c1f2>::operator()")).toBe(
      normalizeNativeFunction('(anonymous namespace)::<lambda_77f0e1aa>::operator()'),
    );
    expect(normalizeNativeFunction('atlas::Pool<atlas::Texture, 64ul>::acquire(unsigned long)')).toBe('atlas::Pool::acquire');
    expect(normalizeNativeFunction('atlas::Loader::load(std::string const&)::{lambda(int)#1}::operator()(int) const')).toBe(
      normalizeNativeFunction('atlas::Loader::load::__l2::<lambda_1f2e3d4c>::operator()'),
    );
  });

  it('numbers Go closures away', () => {
    const frames = (n: number): StackFrame[] => [{ filename: '/src/server.go', function: `main.(*Server).handle.func${n}`, platform: 'go' }];
    expect(
      distinct([event({ type: 'panic', value: 'nil map', stacktrace: frames(1) }), event({ type: 'panic', value: 'nil map', stacktrace: frames(4) })]),
    ).toBe(1);
  });
});

describe('frames that carry no information', () => {
  const page = (value: string, line: number) =>
    event({
      type: 'TypeError',
      value,
      stacktrace: [
        { filename: 'https://shop.example.com/checkout', lineno: line, colno: 3 },
        { filename: '<anonymous>', function: '<anonymous>' },
      ],
    });

  it('falls back to type and message, so different errors on one page stay apart', () => {
    const events = [
      page("Cannot read properties of null (reading 'price')", 12),
      page('cart.items is not iterable', 12),
      page('total.toFixed is not a function', 40),
    ];
    expect(distinct(events)).toBe(3);
    expect(computeGrouping(events[0]).basis).toBe('value');
    expect(hashOf(page('cart.items is not iterable', 99))).toBe(hashOf(events[1]));
  });
});

describe('chained exceptions', () => {
  const outer: StackFrame[] = [
    { module: 'com.shop.Worker', function: 'run', in_app: true },
    { module: 'com.shop.Checkout', function: 'await', in_app: true },
  ];
  const chained = (causeType: string, value: string) =>
    event({
      type: 'java.util.concurrent.CompletionException',
      value: `${causeType}: ${value}`,
      stacktrace: outer,
      cause: { type: causeType, value, stacktrace: [...outer, { module: 'com.shop.PaymentClient', function: 'charge', in_app: true }] },
    });

  it('tells wrappers of different causes apart and groups the same chain', () => {
    expect(hashOf(chained('java.util.concurrent.TimeoutException', 'after 3000 ms'))).toBe(
      hashOf(chained('java.util.concurrent.TimeoutException', 'after 5000 ms')),
    );
    expect(hashOf(chained('java.util.concurrent.TimeoutException', 'x'))).not.toBe(hashOf(chained('java.lang.IllegalStateException', 'x')));
  });

  it("counts a cause's frames only where they differ from the wrapper's (version 2; version 3 unwraps CompletionException)", () => {
    expect(computeGrouping(chained('java.util.concurrent.TimeoutException', 'x'), { version: 2 }).components).toEqual([
      'java.util.concurrent.CompletionException',
      'com.shop.Worker:run',
      'com.shop.Checkout:await',
      'caused by: java.util.concurrent.TimeoutException',
      'com.shop.PaymentClient:charge',
      // A wrapped cause is often another system's error under a generic type: its message counts.
      'root cause: x',
    ]);
    expect(computeGrouping(chained('java.util.concurrent.TimeoutException', 'x')).components).toEqual([
      'java.util.concurrent.TimeoutException',
      'com.shop.Worker:run',
      'com.shop.Checkout:await',
      'com.shop.PaymentClient:charge',
    ]);
  });

  it('shows the root cause and the chain', () => {
    const result = computeGrouping(chained('java.util.concurrent.TimeoutException', 'after 3000 ms'));
    expect(result.title).toBe('java.util.concurrent.CompletionException: java.util.concurrent.TimeoutException: after 3000 ms');
    expect(result.root_cause.type).toBe('java.util.concurrent.TimeoutException');
    expect(result.root_cause.frame?.function).toBe('charge');
    expect(result.root_cause.chain?.map((c) => c.type)).toEqual(['java.util.concurrent.CompletionException', 'java.util.concurrent.TimeoutException']);
    expect(result.root_cause.summary).toBe('java.util.concurrent.TimeoutException: after 3000 ms in charge (com.shop.PaymentClient)');
  });

  it("groups frameless chains by their types and the root cause's message", () => {
    const frameless = (inner: string) => event({ type: 'ValueError', value: 'bad config', cause: { type: 'KeyError', value: inner } });
    expect(hashOf(frameless("'port' missing at line 3"))).toBe(hashOf(frameless("'port' missing at line 9")));
    expect(hashOf(frameless("'port' missing"))).not.toBe(hashOf(frameless("'host' missing")));
  });
});

describe('recursion', () => {
  const cycle = ['parse', 'visit', 'walk'];
  const stack = (depth: number, phase: number, outer: string[] = []): StackFrame[] =>
    [...outer, ...Array.from({ length: depth }, (_, i) => cycle[(i + phase) % cycle.length])].map((fn) => ({
      filename: 'tree.js',
      function: fn,
      in_app: true,
    }));
  const overflow = (frames: StackFrame[]) => event({ type: 'RangeError', value: 'Maximum call stack size exceeded', stacktrace: frames });

  it('groups a cycle the same at any depth and wherever the window starts in it', () => {
    const hashes = new Set([overflow(stack(10, 0)), overflow(stack(10, 1)), overflow(stack(10, 2)), overflow(stack(49, 1)), overflow(stack(7, 2))].map(hashOf));
    expect(hashes.size).toBe(1);
    expect(collapseCycles(['main', 'a', 'b', 'a', 'b', 'a'])).toEqual(['a', 'b']);
    expect(collapseCycles(['main', 'a', 'b', 'a', 'b', 'a', 'crash'])).toEqual(['a', 'b', 'crash']);
  });

  it('drops the frames older than the recursion (whether they show depends on its depth), and keeps different cycles apart', () => {
    expect(hashOf(overflow(stack(30, 0, ['main', 'load'])))).toBe(hashOf(overflow(stack(300, 0, ['main', 'load']).slice(0, 50))));
    const other = ['parse', 'visit', 'emit'];
    const otherStack = Array.from({ length: 10 }, (_, i) => ({ filename: 'tree.js', function: other[i % 3], in_app: true }));
    expect(hashOf(overflow(otherStack))).not.toBe(hashOf(overflow(stack(10, 0))));
  });
});

describe('message parameterization', () => {
  it.each([
    ['request req_Qd1dQBl0yHe1Pm failed', 'request <id> failed'],
    ["Invalid number 'NaN'", "Invalid number '<str>'"],
    ['cannot parse "1\'000"', "cannot parse '<str>'"],
    ['query took 1514ms', 'query took <duration>'],
    ['gave up after 11157ms', 'gave up after <duration>'],
    ['heap limit 512MB reached', 'heap limit <size> reached'],
    ['waited 2m30s', 'waited <duration>'],
    ['bad token dGhpcyBpcyBhIHRva2VuMTIz', 'bad token <token>'],
    ['session 4bf92f3577b34da6a3ce929d0e0e4736 expired', 'session <hex> expired'],
  ])('%s -> %s', (input, output) => expect(parameterizeMessage(input)).toBe(output));

  it.each(['ERR_404 from upstream', 'unknown encoding utf8', "Cannot read properties of undefined (reading 'map')"])('keeps %s', (text) =>
    expect(parameterizeMessage(text)).toBe(text),
  );
});

describe('versions', () => {
  it('computes the frozen version 1 on request, and version 2 by default', () => {
    const e = event({
      type: 'Error',
      value: 'x',
      stacktrace: [{ filename: 'https://cdn.example.com/index-oaDGsuMU.js', function: 'CheckoutStore.applyCoupon' }],
    });
    expect(computeGrouping(e, { version: 1 }).components).toEqual(['Error', 'index-oaDGsuMU.js:CheckoutStore.applyCoupon']);
    expect(computeGrouping(e).components).toEqual(['Error', 'index:applyCoupon']);
    expect(groupingHash(e, { version: 1 })).toBe(computeGrouping(e, { version: 1 }).hash);
  });

  it('a custom fingerprint without {{ default }} hashes the same in both', () => {
    const e = event({ type: 'Error', value: 'x' }, { fingerprint: ['checkout', 'coupon'] });
    expect(groupingHash(e, { version: 1 })).toBe(groupingHash(e, { version: 2 }));
  });
});

describe('what differs between engines, systems and runtime versions', () => {
  const js = (value: string, type = 'TypeError') =>
    event({ type, value, stacktrace: [{ filename: 'https://shop.example.com/checkout', lineno: 3 }] }, { platform: 'javascript' });

  it('reads one message however V8, SpiderMonkey and JavaScriptCore word it', () => {
    expect(
      distinct([
        js("Cannot read properties of null (reading 'price')"),
        js('can\'t access property "price", item is null'),
        js("null is not an object (evaluating 'cart.item.price')"),
      ]),
    ).toBe(1);
    expect(distinct([js('gtag is not defined', 'ReferenceError'), js("Can't find variable: gtag", 'ReferenceError')])).toBe(1);
    expect(distinct([js('Failed to fetch'), js('NetworkError when attempting to fetch resource.'), js('Load failed')])).toBe(1);
    expect(distinct([js('Maximum call stack size exceeded', 'RangeError'), js('too much recursion', 'InternalError')])).toBe(1);
    expect(distinct([js("Cannot read properties of null (reading 'price')"), js("Cannot read properties of null (reading 'name')")])).toBe(2);
  });

  it('one native crash on Linux, Windows and macOS, whatever the C library and entry point', () => {
    const linux = event(
      {
        type: 'SIGSEGV',
        value: '',
        stacktrace: [
          { module: 'libc.so.6', function: '__libc_start_main_impl' },
          { module: 'atlas-viewer', function: 'main' },
          { module: 'libatlas.so', function: 'atlas::SceneGraph::update(double)' },
        ],
      },
      { platform: 'native' },
    );
    const windows = event(
      {
        type: 'EXCEPTION_ACCESS_VIOLATION_READ',
        value: '',
        stacktrace: [
          { module: 'ntdll.dll', function: 'RtlUserThreadStart' },
          { module: 'atlas-viewer.exe', function: 'WinMain' },
          { module: 'atlas.dll', function: 'void __cdecl atlas::SceneGraph::update(double)' },
        ],
      },
      { platform: 'native' },
    );
    expect(computeGrouping(linux).components).toEqual(['bad memory access', 'atlas::SceneGraph::update']);
    expect(hashOf(windows)).toBe(hashOf(linux));
  });

  it('leaves out the callers V8 adds after an await, and counts the innermost eight JavaScript frames', () => {
    const frames = (outer: number, async: boolean): StackFrame[] => [
      ...Array.from({ length: outer }, (_, i) => ({ filename: 'vendor.js', function: `v${i}` })),
      ...(async ? [{ filename: 'app.js', function: 'async loadPage' }] : []),
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((fn) => ({ filename: 'app.js', function: fn })),
    ];
    expect(hashOf(event({ type: 'TypeError', value: 'x', stacktrace: frames(3, true) }, { platform: 'javascript' }))).toBe(
      hashOf(event({ type: 'TypeError', value: 'x', stacktrace: frames(0, false) }, { platform: 'javascript' })),
    );
  });

  it('names a generic file by its folder, and a script by its name whatever it compiles to', () => {
    const at = (filename: string) => computeGrouping(event({ type: 'E', value: 'x', stacktrace: [{ filename, function: 'Page' }] })).components[1];
    expect(at('https://shop.example.com/_next/static/chunks/app/cart/page-8f2a1c3d.js')).toBe('cart/page:Page');
    expect(at('https://shop.example.com/_next/static/chunks/app/orders/page-1b2c3d4e.js')).toBe('orders/page:Page');
    expect(at('/srv/app/src/jobs/poller.ts')).toBe(at('/srv/app/dist/jobs/poller.js'));
  });

  it("Python qualified names (3.11+) are the plain ones; Go's panic and runtime frames do not count", () => {
    const py = (fn: string) => event({ type: 'KeyError', value: "'sku'", stacktrace: [{ module: 'shop.render', function: fn }] }, { platform: 'python' });
    expect(hashOf(py('Renderer.render_receipt'))).toBe(hashOf(py('render_receipt')));
    const go = (extra: StackFrame[]) =>
      event({ type: 'panic', value: 'nil map', stacktrace: [{ filename: 'pool.go', function: 'jobs.(*Pool).Start.gowrap1' }, ...extra] }, { platform: 'go' });
    expect(
      hashOf(
        go([
          { filename: 'panic.go', function: 'panic' },
          { filename: 'stack.go', function: 'runtime/debug.Stack' },
        ]),
      ),
    ).toBe(hashOf(go([])));
  });

  it('tells errors apart by a leading status code, and a wrapped cause by its message', () => {
    const grpc = (value: string) => event({ type: 'io.grpc.StatusRuntimeException', value, stacktrace: [{ module: 'com.acme.Ledger', function: 'post' }] });
    expect(hashOf(grpc('UNAVAILABLE: io exception'))).toBe(hashOf(grpc('UNAVAILABLE: Connection refused')));
    expect(hashOf(grpc('UNAVAILABLE: io exception'))).not.toBe(hashOf(grpc('DEADLINE_EXCEEDED: deadline exceeded after 4.9s')));
    const wrapped = (inner: string) =>
      event({
        type: '*fmt.wrapError',
        value: `insert: ${inner}`,
        stacktrace: [{ filename: 'invoices.go', function: 'api.(*Handler).Create' }],
        cause: { type: '*pq.Error', value: inner },
      });
    expect(hashOf(wrapped('pq: duplicate key value violates unique constraint "invoices_number_key"'))).not.toBe(
      hashOf(wrapped('pq: insert or update on table "invoices" violates foreign key constraint "invoices_customer_id_fkey"')),
    );
  });
});
