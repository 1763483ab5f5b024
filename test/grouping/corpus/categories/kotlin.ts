// Kotlin on Android through sentry-android (`platform: java`): coroutine frames
// (`BaseContinuationImpl.resumeWith`, `DispatchedTask.run`) that change with kotlinx.coroutines,
// suspend lambdas numbered in source order (`OrderRepository$load$2.invokeSuspend` becomes `$3`
// when a lambda is added above it), and lambdas compiled by Kotlin 1.9 as classes
// (`CheckoutViewModel$applyCoupon$1.invoke`) against Kotlin 2.0's invokedynamic
// (`CheckoutViewModel.applyCoupon$lambda$0`, behind D8's `CheckoutViewModel$$ExternalSyntheticLambda3`).
// Hard negatives: another exception type from the same suspend lambda, another innermost method,
// and a sync error whose cause is an HTTP 500 in one bug and a socket timeout in the other.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

type Kotlin = '1.9' | '2.0';
const app = new App('com.shop.android', ['5.10.0', '5.10.2', '5.11.0', '5.12.0']);

interface KtSite {
  cls: string;
  method: string;
  /** A lambda in `method` (numbered `n` by Kotlin 1.9, in source order), or a suspend lambda (always a class). */
  lambda?: { n: number; suspend?: boolean };
  file?: string;
  line?: number;
}
const k = (cls: string, method: string, more: Partial<KtSite> = {}): KtSite => ({ cls, method, ...more });

function render(sites: readonly KtSite[], kotlin: Kotlin, rng: Random, release: number): CorpusFrame[] {
  const frames: CorpusFrame[] = [];
  for (const s of sites) {
    const ours = s.cls.startsWith('com.shop.');
    const simple = s.cls.slice(s.cls.lastIndexOf('.') + 1);
    const file = s.file ?? `${simple}.kt`;
    const at = (s.line ?? 50) + (ours ? app.shift(release, file) : 0);
    const frame = (cls: string, method: string): CorpusFrame => ({ module: cls, function: method, filename: file, lineno: at, in_app: ours });
    if (s.lambda === undefined) frames.push(frame(s.cls, s.method));
    else if (s.lambda.suspend === true || kotlin === '1.9')
      frames.push(frame(`${s.cls}$${s.method}$${s.lambda.n}`, s.lambda.suspend === true ? 'invokeSuspend' : 'invoke'));
    else {
      frames.push({ ...frame(`${s.cls}$$ExternalSyntheticLambda${rng.int(0, 6)}`, 'invoke'), lineno: 0, filename: 'D8$$SyntheticClass' });
      frames.push(frame(s.cls, `${s.method}$lambda$${s.lambda.n - 1}`));
    }
  }
  return frames;
}

const COROUTINES = (kotlinx: string): KtSite[] => [
  k('kotlinx.coroutines.scheduling.CoroutineScheduler$Worker', 'run', { file: 'CoroutineScheduler.kt', line: 749 }),
  ...(kotlinx === '1.7' ? [k('kotlinx.coroutines.scheduling.TaskImpl', 'run', { file: 'Tasks.kt', line: 95 })] : []),
  k('kotlinx.coroutines.DispatchedTask', 'run', { file: 'DispatchedTask.kt', line: kotlinx === '1.7' ? 106 : 108 }),
  k('kotlin.coroutines.jvm.internal.BaseContinuationImpl', 'resumeWith', { file: 'ContinuationImpl.kt', line: 33 }),
];
const CLICK: KtSite[] = [
  k('android.view.View', 'performClick', { file: 'View.java', line: 7659 }),
  k('com.google.android.material.button.MaterialButton', 'performClick', { file: 'MaterialButton.java', line: 1218 }),
];

function ktBug(
  id: string,
  count: readonly [number, number],
  build: (kotlin: Kotlin, kotlinx: string, rng: Random, release: number) => CorpusException,
): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const kotlin: Kotlin = release < 2 ? '1.9' : '2.0';
      const kotlinx = release < 2 ? '1.7' : rng.pick(['1.7', '1.8']);
      return { exception: build(kotlin, kotlinx, rng, release), tags: { kotlin, kotlinx_coroutines: kotlinx, android: String(rng.int(11, 14)) } };
    },
  };
}

/** The repository's load: one more lambda above it from release 3. */
const LOAD = (release: number): KtSite[] => [
  k('com.shop.data.OrderRepository', 'load', { lambda: { n: release < 3 ? 2 : 3, suspend: true }, line: 61 }),
  k('com.shop.data.OrderMapper', 'toDomain', { line: 24 }),
];
const java = (type: string) => ({ type: type.slice(type.lastIndexOf('.') + 1), module: type.slice(0, type.lastIndexOf('.')) });

const BUGS: SdkBug[] = [
  ktBug('order-load-empty-items', [9, 16], (kotlin, kotlinx, rng, release) => ({
    ...java('java.lang.IllegalStateException'),
    value: `Order ${rng.digits(7)} has no items`,
    stacktrace: render([...COROUTINES(kotlinx), ...LOAD(release)], kotlin, rng, release),
  })),
  // The same suspend lambda and mapper: another exception.
  ktBug('order-load-no-element', [6, 12], (kotlin, kotlinx, rng, release) => ({
    ...java('java.util.NoSuchElementException'),
    value: 'List is empty.',
    stacktrace: render([...COROUTINES(kotlinx), ...LOAD(release)], kotlin, rng, release),
  })),
  ktBug('coupon-click-null-code', [9, 16], (kotlin, _kotlinx, rng, release) => ({
    ...java('java.lang.NullPointerException'),
    value: kotlin === '1.9' ? '' : "Attempt to invoke virtual method 'java.lang.String com.shop.model.Coupon.getCode()' on a null object reference",
    stacktrace: render(
      [
        ...CLICK,
        k('com.shop.ui.CheckoutFragment', 'onViewCreated', { lambda: { n: 1 }, line: 72 }),
        k('com.shop.ui.CheckoutViewModel', 'applyCoupon', { line: 118 }),
      ],
      kotlin,
      rng,
      release,
    ),
  })),
  // The same click handler; another method of the view model.
  ktBug('coupon-click-bad-total', [6, 13], (kotlin, _kotlinx, rng, release) => ({
    ...java('java.lang.NumberFormatException'),
    value: `For input string: "${rng.int(1, 99)},${rng.int(10, 99)}"`,
    stacktrace: render(
      [
        ...CLICK,
        k('com.shop.ui.CheckoutFragment', 'onViewCreated', { lambda: { n: 1 }, line: 72 }),
        k('com.shop.ui.CheckoutViewModel', 'parseTotal', { line: 140 }),
      ],
      kotlin,
      rng,
      release,
    ),
  })),
  ...(
    [
      ['sync-push-http-500', 'retrofit2.HttpException', () => 'HTTP 500 '],
      ['sync-push-timeout', 'java.net.SocketTimeoutException', () => 'timeout'],
    ] as const
  ).map(([id, cause, value]) =>
    ktBug(id, [6, 13], (kotlin, kotlinx, rng, release) => {
      const stack = [...COROUTINES(kotlinx), k('com.shop.sync.SyncWorker', 'doWork', { lambda: { n: 1, suspend: true }, line: 40 })];
      return {
        ...java('com.shop.sync.SyncException'),
        value: `sync of ${rng.int(1, 40)} orders failed`,
        stacktrace: render(stack, kotlin, rng, release),
        cause: { ...java(cause), value: value(), stacktrace: render([...stack, k('com.shop.sync.OrdersApi', 'push', { line: 18 })], kotlin, rng, release) },
      };
    }),
  ),
];

export const kotlin = sdkCategory(
  'kotlin',
  'Kotlin/Android (sentry-android, `java`): coroutine frames, suspend-lambda numbers, Kotlin 1.9 lambda classes vs 2.0 invokedynamic and D8 synthetic lambdas',
  app,
  'java',
  BUGS,
);
