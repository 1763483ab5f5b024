// .NET through sentry-dotnet (`platform: csharp`): compiler-generated names whose ordinals change
// between builds — the async state machine `OrderService+<ProcessAsync>d__12` / `MoveNext`, the
// closure class `+<>c__DisplayClass5_0` / `<Run>b__0` and the cached-lambda class `+<>c` /
// `<Run>b__5_1` — against the SDK's enhanced mode (`async Task<Order> OrderService.ProcessAsync(int
// orderId)`, lambdas as `Run()+(Order o) => { }`); the await frames of .NET 6 and 8; wrapper
// exceptions (TargetInvocationException from a job runner's reflection, AggregateException from
// `Task.Wait()`) that an upgrade removes. Hard negatives: another exception type from the same
// stack, another innermost method, another inner exception under the same wrapper.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

type Mode = 'original' | 'enhanced';
type Net = '6' | '8';
const app = new App('Shop.Api', ['2.4.0', '2.4.1', '2.5.0', '2.6.0']);

/** A method: its type, name, parameters, return type, and how the compiler made it (async, a lambda in it). */
interface NetSite {
  type: string;
  method: string;
  params?: string;
  returns?: string;
  kind?: 'async' | 'lambda' | 'cached-lambda';
  app?: boolean;
}

const m = (type: string, method: string, more: Partial<NetSite> = {}): NetSite => ({ type, method, app: type.startsWith('Shop.'), ...more });

function render(sites: readonly NetSite[], mode: Mode, release: number, rng: Random): CorpusFrame[] {
  const build = app.build(release, 'ordinals');
  return sites.map((s) => {
    const short = s.type.slice(s.type.lastIndexOf('.') + 1);
    const ordinal = build.int(0, 30);
    let module = s.type;
    let fn = s.method;
    if (mode === 'original') {
      if (s.kind === 'async') [module, fn] = [`${s.type}+<${s.method}>d__${ordinal}`, 'MoveNext'];
      else if (s.kind === 'lambda') [module, fn] = [`${s.type}+<>c__DisplayClass${ordinal}_0`, `<${s.method}>b__0`];
      else if (s.kind === 'cached-lambda') [module, fn] = [`${s.type}+<>c`, `<${s.method}>b__${ordinal}_${build.int(0, 3)}`];
    } else {
      const params = `(${s.params ?? ''})`;
      if (s.kind === 'async') fn = `async ${s.returns ?? 'Task'} ${short}.${s.method}${params}`;
      else if (s.kind === 'lambda' || s.kind === 'cached-lambda') fn = `${s.returns ?? 'void'} ${short}.${s.method}${params}+(Order o) => { }`;
      else fn = `${s.returns ?? 'void'} ${short}.${s.method}${params}`;
    }
    const frame: CorpusFrame = { function: fn, module, in_app: s.app === true };
    if (s.app === true) {
      frame.filename = `${short}.cs`;
      frame.abs_path = `${rng.pick(['/src', 'D:\\a\\shop\\shop'])}/src/Shop.Api/${short}.cs`;
      frame.lineno = 20 + build.int(0, 200);
    }
    return frame;
  });
}

/** What .NET puts between an awaited call and its caller (oldest first). */
const AWAIT = (net: Net): NetSite[] =>
  net === '6'
    ? [
        m('System.Runtime.CompilerServices.TaskAwaiter', 'HandleNonSuccessAndDebuggerNotification', { params: 'Task task' }),
        m('System.Runtime.CompilerServices.TaskAwaiter', 'ThrowForNonSuccess', { params: 'Task task' }),
        m('System.Runtime.ExceptionServices.ExceptionDispatchInfo', 'Throw'),
      ]
    : [m('System.Runtime.ExceptionServices.ExceptionDispatchInfo', 'Throw')];

const ASPNET: NetSite[] = [
  m('Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol', 'ProcessRequests', { kind: 'async' }),
  m('Microsoft.AspNetCore.Routing.EndpointMiddleware', 'Invoke', { kind: 'async' }),
  m('Microsoft.AspNetCore.Mvc.Infrastructure.ControllerActionInvoker', 'InvokeActionMethodAsync', { kind: 'async' }),
];

function netBug(id: string, count: readonly [number, number], build: (net: Net, mode: Mode, rng: Random, release: number) => CorpusException): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const net: Net = release < 2 ? '6' : rng.pick(['6', '8'] as const);
      const mode: Mode = rng.pick(['original', 'enhanced'] as const);
      return { exception: build(net, mode, rng, release), tags: { runtime: `.NET ${net}.0.${rng.int(1, 30)}`, stack_trace_mode: mode } };
    },
  };
}

const PROCESS = (net: Net): NetSite[] => [
  ...ASPNET,
  m('Shop.Api.Controllers.OrdersController', 'Submit', { kind: 'async', returns: 'Task<IActionResult>', params: 'SubmitRequest request' }),
  ...AWAIT(net),
  m('Shop.Orders.OrderService', 'ProcessAsync', { kind: 'async', returns: 'Task<Order>', params: 'int orderId' }),
  m('Shop.Orders.PriceCalculator', 'Calculate', { kind: 'lambda', params: 'Order order', returns: 'decimal' }),
];

const jobStack = (wrapped: boolean): NetSite[] => [
  m('Shop.Scheduler.JobRunner', 'Execute', { params: 'JobDefinition job' }),
  ...(wrapped ? [m('System.Reflection.MethodBase', 'Invoke', { params: 'object obj, object[] parameters' })] : []),
];
const invoiceJob: NetSite[] = [m('Shop.Billing.InvoiceJob', 'Run'), m('Shop.Billing.InvoiceLock', 'Acquire', { params: 'int invoiceId' })];

/** The job runner called jobs by reflection (TargetInvocationException) until release 3 invoked compiled delegates. */
function viaRunner(net: Net, mode: Mode, rng: Random, release: number, inner: Omit<CorpusException, 'stacktrace'>): CorpusException {
  if (release < 3) {
    const reflection = net === '6' ? m('System.RuntimeMethodHandle', 'InvokeMethod') : m('System.Reflection.MethodInvoker', 'Invoke');
    return {
      type: 'System.Reflection.TargetInvocationException',
      value: 'Exception has been thrown by the target of an invocation.',
      stacktrace: render(jobStack(true), mode, release, rng),
      cause: { ...inner, stacktrace: render([reflection, ...invoiceJob], mode, release, rng) },
    };
  }
  return { ...inner, stacktrace: render([...jobStack(false), ...invoiceJob], mode, release, rng) };
}

const BUGS: SdkBug[] = [
  netBug('price-missing-tier', [9, 16], (net, mode, rng, release) => ({
    type: 'System.Collections.Generic.KeyNotFoundException',
    value: `The given key '${rng.pick(['gold', 'silver', 'b2b'])}' was not present in the dictionary.`,
    stacktrace: render(PROCESS(net), mode, release, rng),
  })),
  // The same stack: an empty sequence, not a missing key.
  netBug('price-empty-rules', [6, 12], (net, mode, rng, release) => ({
    type: 'System.InvalidOperationException',
    value: 'Sequence contains no elements',
    stacktrace: render(PROCESS(net), mode, release, rng),
  })),
  // The same request; the order service fails before pricing.
  netBug('order-null-customer', [6, 13], (net, mode, rng, release) => ({
    type: 'System.NullReferenceException',
    value: 'Object reference not set to an instance of an object.',
    stacktrace: render(
      [...PROCESS(net).slice(0, -1), m('Shop.Orders.CustomerLookup', 'Resolve', { kind: 'cached-lambda', params: 'int customerId', returns: 'Customer' })],
      mode,
      release,
      rng,
    ),
  })),
  netBug('invoice-lock-held', [8, 15], (net, mode, rng, release) =>
    viaRunner(net, mode, rng, release, {
      type: 'Shop.Billing.InvoiceLockedException',
      value: `Invoice ${rng.digits(6)} is locked by ${rng.pick(['worker-1', 'worker-3'])}`,
    }),
  ),
  // The same job and runner; the lock store timed out instead.
  netBug('invoice-lock-timeout', [6, 12], (net, mode, rng, release) =>
    viaRunner(net, mode, rng, release, { type: 'System.TimeoutException', value: `The operation has timed out after ${rng.int(5, 30)}s.` }),
  ),
  // `Task.Wait()` wraps in AggregateException; `GetAwaiter().GetResult()` (from release 2) does not.
  netBug('sync-push-refused', [8, 15], (net, mode, rng, release) => {
    const worker = m('Shop.Sync.SyncWorker', 'ExecuteOnce');
    const client: NetSite[] = [
      m('Shop.Sync.InventoryClient', 'PushAsync', { kind: 'async', returns: 'Task' }),
      m('System.Net.Http.HttpConnectionPool', 'ConnectAsync', { kind: 'async' }),
    ];
    const inner = { type: 'System.Net.Http.HttpRequestException', value: `Connection refused (inventory.internal:${rng.pick([8080, 8443])})` };
    if (release < 2)
      return {
        type: 'System.AggregateException',
        value: `One or more errors occurred. (${inner.value})`,
        stacktrace: render([worker, m('System.Threading.Tasks.Task', 'Wait')], mode, release, rng),
        cause: { ...inner, stacktrace: render(client, mode, release, rng) },
      };
    return {
      ...inner,
      stacktrace: render([worker, m('System.Runtime.CompilerServices.TaskAwaiter', 'GetResult'), ...AWAIT(net), ...client], mode, release, rng),
    };
  }),
];

export const dotnet = sdkCategory(
  'dotnet',
  '.NET (sentry-dotnet): state-machine and closure ordinals, enhanced vs original stack traces, await frames of .NET 6/8, TargetInvocationException and AggregateException wrappers',
  app,
  'csharp',
  BUGS,
);
