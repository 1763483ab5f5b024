// React Native on Hermes through @sentry/react-native (`platform: javascript`), without uploaded
// source maps: every frame is in the bundle — `index.android.bundle` on Android, `main.jsbundle`
// on iOS — as `app:///…` or Hermes's `address at …` form; Hermes's own promise code shows as
// `InternalBytecode.js` frames between the app's; the old architecture's bridge adds
// `MessageQueue` frames that the new architecture (bridgeless) does not. Hard negatives: another
// innermost function under the same press handler, another error type on the same stack, an effect
// of another screen.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusFrame } from '../types.js';

type Os = 'android' | 'ios';
const app = new App('shop-mobile', ['3.4.0', '3.4.1', '3.5.0', '3.6.0']);

/** `fn` of the bundle (names survive Hermes bytecode), or a Hermes-internal frame. */
type RnSite = { fn: string } | { internal: string };
const f = (fn: string): RnSite => ({ fn });
const internal = (fn: string): RnSite => ({ internal: fn });

function render(sites: readonly RnSite[], os: Os, rng: Random, release: number): CorpusFrame[] {
  const bundle = os === 'android' ? 'index.android.bundle' : 'main.jsbundle';
  const hermesForm = rng.chance(0.4);
  const build = app.build(release, os);
  return sites.map((s) => {
    if ('internal' in s)
      return {
        function: s.internal,
        filename: hermesForm ? 'address at InternalBytecode.js' : 'InternalBytecode.js',
        lineno: 1,
        colno: rng.int(900, 9000),
        in_app: false,
      };
    return { function: s.fn, filename: hermesForm ? `address at ${bundle}` : `app:///${bundle}`, lineno: 1, colno: build.int(10_000, 2_000_000), in_app: true };
  });
}

const OLD_ARCH: RnSite[] = [f('callFunctionReturnFlushedQueue'), f('__guard'), f('__callFunction'), f('receiveTouches')];
const PRESS: RnSite[] = [
  f('_receiveRootNodeIDEvent'),
  f('batchedUpdates$1'),
  f('dispatchEventsForPlugins'),
  f('executeDispatch'),
  f('_performTransitionSideEffects'),
  f('onPress'),
];
const PROMISE: RnSite[] = [internal('tryCallOne'), internal('anonymous'), internal('apply')];

function rnBug(id: string, count: readonly [number, number], type: string, value: string, sites: RnSite[]): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const os: Os = rng.pick(['android', 'ios'] as const);
      const newArch = release >= 2 && rng.chance(0.6);
      const promise = rng.chance(0.5);
      // The bridge calls in from below; a promise continuation runs on Hermes's own code.
      const all = [...(newArch ? [] : OLD_ARCH), ...sites.flatMap((s) => ('fn' in s && s.fn === '<await>' ? (promise ? PROMISE : []) : [s]))];
      return { exception: { type, value, stacktrace: render(all, os, rng, release) }, tags: { os, architecture: newArch ? 'new' : 'old' } };
    },
  };
}

const AWAIT = f('<await>');
const COUPON = [...PRESS, f('submitCoupon'), AWAIT, f('applyCoupon')];

const BUGS: SdkBug[] = [
  rnBug('coupon-undefined-code', [9, 16], 'TypeError', "Cannot read property 'code' of undefined", [...COUPON, f('normalizeCoupon')]),
  // The same stack, another error.
  rnBug('coupon-invalid-date', [6, 12], 'RangeError', 'Date value out of bounds', [...COUPON, f('normalizeCoupon')]),
  // The same press handler; the gift card path fails.
  rnBug('giftcard-undefined-balance', [6, 13], 'TypeError', "Cannot read property 'balance' of undefined", [
    ...PRESS,
    f('submitCoupon'),
    AWAIT,
    f('applyGiftCard'),
  ]),
  // An effect of another screen, through React's commit.
  rnBug('cart-effect-undefined-items', [7, 14], 'TypeError', "Cannot read property 'length' of undefined", [
    f('flushPassiveEffects'),
    f('commitPassiveMountOnFiber'),
    f('commitHookEffectListMount'),
    f('loadCart'),
    AWAIT,
    f('countItems'),
  ]),
  rnBug('profile-effect-undefined-items', [6, 12], 'TypeError', "Cannot read property 'length' of undefined", [
    f('flushPassiveEffects'),
    f('commitPassiveMountOnFiber'),
    f('commitHookEffectListMount'),
    f('loadProfile'),
    AWAIT,
    f('countOrders'),
  ]),
];

export const reactNative = sdkCategory(
  'react-native',
  'React Native/Hermes (@sentry/react-native, `javascript`): `index.android.bundle` vs `main.jsbundle`, `address at` frames, InternalBytecode.js promise frames, old vs new architecture',
  app,
  'javascript',
  BUGS,
);
