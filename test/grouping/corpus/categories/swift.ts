// Swift on iOS through sentry-cocoa (`platform: cocoa`): a build whose dSYM was uploaded shows
// demangled names (`CheckoutViewController.applyCoupon(code:)`, `closure #1 in
// CheckoutViewController.viewDidLoad()`), one without shows the mangled symbol
// (`$s4Shop22CheckoutViewControllerC11applyCoupon4codeySS_tF`); reabstraction thunks (`thunk for
// @escaping @callee_guaranteed () -> ()`) and `@objc` entry thunks come and go with the
// optimizer; crash messages carry the faulting address. Hard negatives: another closure of the
// same method calling another function, another crash kind on the same stack, an Objective-C
// exception from another method of the same controller.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusException, CorpusFrame } from '../types.js';

const app = new App('Shop-iOS', ['7.2.0', '7.2.1', '7.3.0', '7.4.0']);

/** Swift's mangling of an identifier: its length, then it. */
const id = (name: string) => `${name.length}${name}`;

/** A Swift method: type, method, labels (`code:`), and, for a closure, its index in the method. */
interface SwiftSite {
  type: string;
  method: string;
  labels?: string[];
  closure?: number;
  system?: { image: string; name: string };
}
const sw = (type: string, method: string, more: Partial<SwiftSite> = {}): SwiftSite => ({ type, method, ...more });
const sys = (image: string, name: string): SwiftSite => ({ type: '', method: '', system: { image, name } });

function demangled(s: SwiftSite): string {
  const labels = (s.labels ?? []).map((l) => `${l}:`).join('');
  const method = `${s.type}.${s.method}(${labels})`;
  return s.closure === undefined ? method : `closure #${s.closure} in ${method}`;
}

function mangled(s: SwiftSite): string {
  const labels = (s.labels ?? []).map(id).join('');
  const base = `$s4Shop${id(s.type)}C${id(s.method)}${labels}y${s.labels?.length ? 'SS_t' : 'y'}F`;
  return s.closure === undefined ? base : `${base}yycfU${s.closure === 1 ? '_' : `${s.closure - 2}_`}`;
}

function render(sites: readonly SwiftSite[], symbols: boolean, rng: Random): CorpusFrame[] {
  const frames: CorpusFrame[] = [];
  const thunks = rng.chance(0.5);
  for (const s of sites) {
    const addr = `0x${(0x1_0000_0000 + rng.int(0, 0xfffffff)).toString(16)}`;
    if (s.system !== undefined) {
      frames.push({ function: s.system.name, module: s.system.image, instruction_addr: addr, in_app: false });
      continue;
    }
    if (s.closure !== undefined && thunks) {
      frames.push({
        function: symbols ? 'thunk for @escaping @callee_guaranteed () -> ()' : '$sIeg_IeyB_TR',
        module: 'Shop',
        instruction_addr: addr,
        in_app: true,
      });
    }
    if (s.closure === undefined && s.labels !== undefined && thunks) {
      frames.push({ function: symbols ? `@objc ${demangled(s)}` : `${mangled(s)}To`, module: 'Shop', instruction_addr: addr, in_app: true });
    }
    const frame: CorpusFrame = { function: symbols ? demangled(s) : mangled(s), module: 'Shop', instruction_addr: addr, in_app: true };
    if (symbols) {
      frame.filename = `${s.type}.swift`;
      frame.lineno = 40 + rng.int(0, 3);
    }
    frames.push(frame);
  }
  return frames;
}

const UIKIT: SwiftSite[] = [
  sys('libdyld.dylib', 'start'),
  sys('UIKitCore', 'UIApplicationMain'),
  sys('UIKitCore', '-[UIApplication sendAction:to:from:forEvent:]'),
  sys('UIKitCore', '-[UIControl sendAction:to:forEvent:]'),
];
const MAIN_QUEUE: SwiftSite[] = [
  sys('libdyld.dylib', 'start'),
  sys('CoreFoundation', 'CFRunLoopRunSpecific'),
  sys('libdispatch.dylib', '_dispatch_main_queue_drain'),
  sys('libdispatch.dylib', '_dispatch_call_block_and_release'),
];

function crash(kind: 'nil' | 'bad-access', rng: Random): Pick<CorpusException, 'type' | 'value'> {
  const address = `0x${rng.hex(12).padStart(16, '0')}`;
  return kind === 'nil'
    ? {
        type: 'EXC_BREAKPOINT',
        value: `Exception 1, Code ${rng.digits(10)}, Subcode 8 > Fatal error: Unexpectedly found nil while unwrapping an Optional value`,
      }
    : { type: 'EXC_BAD_ACCESS', value: `KERN_INVALID_ADDRESS at ${address}.` };
}

function swiftBug(id: string, count: readonly [number, number], build: (rng: Random) => Pick<CorpusException, 'type' | 'value'>, sites: SwiftSite[]): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const symbols = !app.build(release, 'dsym').chance(0.4) || rng.chance(0.3);
      return {
        exception: { ...build(rng), stacktrace: render(sites, symbols, rng) },
        tags: { ios: rng.pick(['17.5', '17.6', '18.0']), dsym: symbols ? 'yes' : 'no' },
      };
    },
  };
}

const APPLY = [...UIKIT, sw('CheckoutViewController', 'applyTapped', { labels: ['_'] }), sw('CheckoutViewController', 'applyCoupon', { labels: ['code'] })];

const BUGS: SdkBug[] = [
  swiftBug('apply-coupon-force-unwrap', [9, 16], (rng) => crash('nil', rng), [...APPLY, sw('CouponStore', 'redeem', { labels: ['code'] })]),
  // The same stack, a bad access.
  swiftBug('apply-coupon-bad-access', [6, 12], (rng) => crash('bad-access', rng), [...APPLY, sw('CouponStore', 'redeem', { labels: ['code'] })]),
  swiftBug('cart-reload-closure-nil', [8, 15], (rng) => crash('nil', rng), [
    ...MAIN_QUEUE,
    sw('CartViewController', 'viewDidLoad', { closure: 1 }),
    sw('CartStore', 'reload'),
  ]),
  // Another closure of the same method, calling something else.
  swiftBug('cart-clear-closure-nil', [6, 12], (rng) => crash('nil', rng), [
    ...MAIN_QUEUE,
    sw('CartViewController', 'viewDidLoad', { closure: 2 }),
    sw('CartStore', 'clear'),
  ]),
  swiftBug(
    'save-draft-nil-key',
    [6, 13],
    () => ({ type: 'NSInvalidArgumentException', value: '*** -[__NSDictionaryM setObject:forKey:]: object cannot be nil (key: promo)' }),
    [
      ...UIKIT,
      sw('CheckoutViewController', 'saveDraft'),
      sys('CoreFoundation', '-[__NSDictionaryM setObject:forKey:]'),
      sys('libobjc.A.dylib', 'objc_exception_throw'),
    ],
  ),
];

export const swift = sdkCategory(
  'swift',
  'Swift/iOS (sentry-cocoa, `cocoa`): mangled vs demangled names, `closure #N in`, reabstraction and `@objc` thunks, addresses in crash messages',
  app,
  'cocoa',
  BUGS,
);
