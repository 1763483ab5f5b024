// Grouping version 3 (issue #32): the per-platform rules of names/ and the unwrapping of wrapper
// exceptions, each shown on the SDK's real frame shapes; version 2 stays as it was (frozen).
import { describe, expect, it } from 'vitest';
import type { ErrorEvent, ExceptionInfo, StackFrame } from '../../src/records/event.js';
import { computeGrouping } from '../../processors/grouping/fingerprint.js';
import { parameterizeMessageV3 } from '../../processors/grouping/names/messages.js';
import { normalizeSwiftFunction } from '../../processors/grouping/names/swift.js';
import { prepareRustSymbol } from '../../processors/grouping/names/rust.js';

function event(platform: string, exception: ExceptionInfo): ErrorEvent {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    timestamp: '2026-11-01T12:00:00.000Z',
    environment: 'production',
    release: 'app@1.0.0',
    level: 'error',
    platform,
    exception,
    project_id: 'p',
    received_at: '2026-11-01T12:00:01.000Z',
    processing_errors: [],
  };
}
const frames = (platform: string, type: string, stacktrace: StackFrame[], value = 'x') =>
  computeGrouping(event(platform, { type, value, stacktrace })).components;

describe('version 3 per platform', () => {
  it('Ruby: labels of 3.2–3.4 are one', () => {
    const at = (fn: string) => frames('ruby', 'NoMethodError', [{ function: fn, filename: 'app/models/order.rb', in_app: true }]);
    expect(at('block in Order#apply_discount')).toEqual(at('block in apply_discount'));
    expect(at('block in apply_discount')).not.toEqual(at('apply_discount'));
    expect(at('Order.find_active')).toEqual(at('find_active'));
  });

  it('PHP: 8.4 closures named after file and line are `{closure}`', () => {
    const at = (fn: string) => frames('php', 'TypeError', [{ function: fn, filename: '/routes/web.php', in_app: true }]);
    expect(at('{closure:/var/www/releases/20250501/routes/web.php:42}')).toEqual(at('{closure}'));
  });

  it('.NET: state machines, closure classes and enhanced signatures name one method', () => {
    const at = (f: StackFrame) => frames('csharp', 'System.InvalidOperationException', [{ ...f, in_app: true }]);
    const method = at({ module: 'Shop.Orders.OrderService', function: 'async Task<Order> OrderService.ProcessAsync(int orderId)' });
    expect(at({ module: 'Shop.Orders.OrderService+<ProcessAsync>d__12', function: 'MoveNext' })).toEqual(method);
    expect(at({ module: 'Shop.Orders.OrderService+<ProcessAsync>d__14', function: 'MoveNext' })).toEqual(method);
    const lambda = at({ module: 'Shop.Jobs.ReportJob+<>c__DisplayClass5_0', function: '<Run>b__0' });
    expect(at({ module: 'Shop.Jobs.ReportJob+<>c', function: '<Run>b__5_1' })).toEqual(lambda);
    expect(at({ module: 'Shop.Jobs.ReportJob', function: 'void ReportJob.Run()+(Order o) => { }' })).toEqual(lambda);
    expect(lambda).not.toEqual(at({ module: 'Shop.Jobs.ReportJob', function: 'void ReportJob.Run()' }));
  });

  it('.NET and Java: a wrapper with a cause groups as the cause, a different cause stays apart', () => {
    const job: StackFrame[] = [{ module: 'Shop.Billing.InvoiceJob', function: 'Run', in_app: true }];
    const runner: StackFrame[] = [{ module: 'Shop.Scheduler.JobRunner', function: 'Execute', in_app: true }];
    const inner = (type: string): ExceptionInfo => ({ type, value: 'locked', stacktrace: job });
    const wrapped = (type: string) =>
      computeGrouping(event('csharp', { type: 'System.Reflection.TargetInvocationException', value: 'x', stacktrace: runner, cause: inner(type) })).hash;
    const direct = computeGrouping(event('csharp', { ...inner('Shop.LockedException'), stacktrace: [...runner, ...job] })).hash;
    expect(wrapped('Shop.LockedException')).toBe(direct);
    expect(wrapped('System.TimeoutException')).not.toBe(direct);
    const java = (type: string, module: string) =>
      computeGrouping(
        event('java', {
          type,
          module,
          value: 'x',
          stacktrace: [{ module: 'com.shop.Api', function: 'get', in_app: true }],
          cause: { type: 'IllegalStateException', module: 'java.lang', value: 'x', stacktrace: [{ module: 'com.shop.Worker', function: 'run', in_app: true }] },
        }),
      ).hash;
    expect(java('ExecutionException', 'java.util.concurrent')).toBe(java('CompletionException', 'java.util.concurrent'));
  });

  it('Rust: hashes, closure spellings, generics and trait impls', () => {
    expect(prepareRustSymbol('<ledger::api::PostEntry as axum::Handler<(), S>>::call::{{closure}}')).toBe('ledger::api::PostEntry::call::{closure}');
    const at = (fn: string) => frames('native', 'panic', [{ function: fn, in_app: true }], 'called `Option::unwrap()` on a `None` value');
    expect(at('ledger::entries::Repo<T>::insert::{{closure}}::h1a2b3c4d5e6f7a8b')).toEqual(at('ledger::entries::Repo<ledger::db::Pg>::insert::{closure#0}'));
    // Another panic at the same function is another bug.
    expect(at('ledger::x')).not.toEqual(
      frames('native', 'panic', [{ function: 'ledger::x', in_app: true }], 'index out of bounds: the len is 2 but the index is 2'),
    );
  });

  it('Swift: mangled and demangled names, closures, thunks dropped', () => {
    expect(normalizeSwiftFunction('$s4Shop22CheckoutViewControllerC11applyCoupon4codeySS_tF')).toBe('CheckoutViewController.applyCoupon');
    expect(normalizeSwiftFunction('CheckoutViewController.applyCoupon(code:)')).toBe('CheckoutViewController.applyCoupon');
    expect(normalizeSwiftFunction('closure #1 in CartViewController.viewDidLoad()')).toBe('CartViewController.viewDidLoad{closure}');
    expect(normalizeSwiftFunction('$s4Shop18CartViewControllerC11viewDidLoadyyFyycfU_')).toBe('CartViewController.viewDidLoad{closure}');
    expect(normalizeSwiftFunction('thunk for @escaping @callee_guaranteed () -> ()')).toBeNull();
    expect(normalizeSwiftFunction('$sIeg_IeyB_TR')).toBeNull();
    expect(normalizeSwiftFunction('-[UIControl sendAction:to:forEvent:]')).toBeUndefined();
  });

  it('Kotlin: 1.9 lambda classes, 2.0 invokedynamic lambdas and D8 synthetic classes are one lambda', () => {
    const at = (f: StackFrame[]) =>
      frames(
        'java',
        'NullPointerException',
        f.map((x) => ({ ...x, in_app: true })),
      );
    const v19 = at([{ module: 'com.shop.ui.CheckoutViewModel$applyCoupon$1', function: 'invoke' }]);
    expect(
      at([
        { module: 'com.shop.ui.CheckoutViewModel$$ExternalSyntheticLambda3', function: 'invoke' },
        { module: 'com.shop.ui.CheckoutViewModel', function: 'applyCoupon$lambda$0' },
      ]),
    ).toEqual(v19);
    expect(at([{ module: 'com.shop.ui.CheckoutViewModel$applyCoupon$2', function: 'invoke' }])).toEqual(v19);
    expect(at([{ module: 'com.shop.ui.CheckoutViewModel', function: 'applyCoupon' }])).not.toEqual(v19);
  });

  it('Elixir: server frames out, overridable numbers and anonymous spellings one', () => {
    const app = (fn: string): StackFrame => ({ module: 'Shop.Orders', function: fn, in_app: true });
    const cowboy = frames('elixir', 'KeyError', [{ module: ':cowboy_stream_h', function: 'execute/3' }, app('-place/1-fun-0-/1')]);
    expect(frames('elixir', 'KeyError', [{ module: 'Bandit.Pipeline', function: 'run/4' }, app('anonymous fn/1 in Shop.Orders.place/1')])).toEqual(cowboy);
    const endpoint = (n: number) => frames('elixir', 'KeyError', [{ module: 'ShopWeb.Endpoint', function: `call (overridable ${n})/2`, in_app: true }]);
    expect(endpoint(3)).toEqual(endpoint(4));
  });

  it('Dart and React Native: async gaps, Hermes internals, one bundle on both OSes', () => {
    const dart = (gap: boolean) =>
      frames('other', '_TypeError', [
        { function: 'a', abs_path: 'package:shop/a.dart', platform: 'dart' },
        ...(gap ? [{ abs_path: '<asynchronous suspension>', platform: 'dart' }] : []),
        { function: 'b', abs_path: 'package:shop/b.dart', platform: 'dart' },
      ]);
    expect(dart(true)).toEqual(dart(false));
    const rn = (bundle: string, internal: boolean) =>
      frames('javascript', 'TypeError', [
        { function: 'submit', filename: bundle, in_app: true },
        ...(internal ? [{ function: 'tryCallOne', filename: 'address at InternalBytecode.js' }] : []),
        { function: 'applyCoupon', filename: bundle, in_app: true },
      ]);
    expect(rn('app:///index.android.bundle', true)).toEqual(rn('address at main.jsbundle', false));
    // The old architecture's bridge frames go, in the bundle only: a web app's own `receiveEvent` stays.
    const bridge = (file: string) =>
      frames('javascript', 'TypeError', [
        { function: 'receiveEvent', filename: file, in_app: true },
        { function: 'applyCoupon', filename: file, in_app: true },
      ]);
    expect(bridge('app:///index.android.bundle')).toEqual(['TypeError', '<bundle>:applyCoupon']);
    expect(bridge('https://shop.example.com/assets/checkout.js')).toEqual(['TypeError', 'checkout:receiveEvent', 'checkout:applyCoupon']);
  });
});

describe('version 3 messages', () => {
  it('amounts, grouped numbers, paths, MAC addresses and ULIDs', () => {
    expect(parameterizeMessageV3('Charge of $1,234.56 exceeds 12,50 €')).toBe(parameterizeMessageV3('Charge of £5 exceeds EUR 99.00'));
    expect(parameterizeMessageV3('Import has 1,234,567 rows')).toBe('Import has <int> rows');
    expect(parameterizeMessageV3('open /var/www/releases/20250501/storage/x.log failed')).toBe('open <path>/x.log failed');
    expect(parameterizeMessageV3('Printer 00:1A:2B:3C:4D:5E unreachable')).toBe('Printer <mac> unreachable');
    expect(parameterizeMessageV3('order 01J5Z8K2Q4W9X7Y6T5R3N1M0PA not found')).toBe('order <id> not found');
    expect(parameterizeMessageV3('order 01J5Z8K2Q4W9X7Y6T5R3N1M0PA not found')).not.toBe(parameterizeMessageV3('cart 01J5Z8K2Q4W9X7Y6T5R3N1M0PA not found'));
  });

  it('runs in linear time on hostile input', () => {
    const hostile = ['/a'.repeat(50_000), '$' + '1,'.repeat(50_000), '0'.repeat(100_000), 'key :' + 'x'.repeat(100_000)];
    for (const text of hostile) {
      const t0 = performance.now();
      parameterizeMessageV3(text);
      computeGrouping(event('elixir', { type: 'KeyError', value: text }));
      expect(performance.now() - t0).toBeLessThan(500);
    }
  });
});
