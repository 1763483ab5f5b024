// Flutter through sentry-dart (`platform: other`, each frame `platform: dart`): `<asynchronous
// suspension>` gaps that show or not depending on the Dart version and how the future was
// awaited, `package:` URIs in release builds against `file:///` paths in profile and debug
// builds, and Flutter's own frames (gestures, scheduler) that change with the Flutter version.
// Hard negatives: another innermost method of the same widget, another exception type on the
// same stack, and a different callback of the same widget tree.
import { App } from '../common.js';
import type { Random } from '../random.js';
import { line, sdkCategory, type SdkBug } from '../sdk.js';
import type { CorpusFrame } from '../types.js';

const app = new App('shop_app', ['4.0.0+40', '4.0.1+41', '4.1.0+45', '4.2.0+52']);
/** `'gap'` marks where an await happened. */
type DartSite = { fn: string; uri: string; line: number } | 'gap';
const d = (fn: string, uri: string, lineNo: number): DartSite => ({ fn, uri, line: lineNo });

function render(sites: readonly DartSite[], rng: Random, release: number, gaps: boolean): CorpusFrame[] {
  const fileUris = rng.chance(0.35);
  const frames: CorpusFrame[] = [];
  for (const s of sites) {
    if (s === 'gap') {
      if (gaps) frames.push({ abs_path: '<asynchronous suspension>', platform: 'dart' });
      continue;
    }
    const ours = s.uri.startsWith('package:shop_app/');
    const path = ours && fileUris ? `file:///Users/runner/work/shop_app/lib/${s.uri.slice('package:shop_app/'.length)}` : s.uri;
    frames.push({
      function: s.fn,
      abs_path: path,
      filename: s.uri.slice(s.uri.lastIndexOf('/') + 1),
      lineno: ours ? line(app, release, s.uri, s.line) : s.line,
      colno: rng.int(5, 40),
      in_app: ours,
      platform: 'dart',
    });
  }
  return frames;
}

const TAP = (flutter: string): DartSite[] => [
  d('GestureBinding.handlePointerEvent', 'package:flutter/src/gestures/binding.dart', flutter === '3.19' ? 445 : 497),
  d('GestureRecognizer.invokeCallback', 'package:flutter/src/gestures/recognizer.dart', flutter === '3.19' ? 275 : 351),
  ...(flutter === '3.19' ? [] : [d('TapGestureRecognizer.handleTapUp', 'package:flutter/src/gestures/tap.dart', 656)]),
  d('_InkResponseState.handleTap', 'package:flutter/src/material/ink_well.dart', flutter === '3.19' ? 1155 : 1170),
];

function dartBug(id: string, count: readonly [number, number], type: string, value: string, sites: (flutter: string) => DartSite[]): SdkBug {
  return {
    id,
    count,
    make: (rng, release) => {
      const flutter = release < 2 ? '3.19' : rng.pick(['3.19', '3.22']);
      const gaps = rng.chance(0.5);
      return {
        exception: { type, value, stacktrace: render(sites(flutter), rng, release, gaps) },
        tags: { flutter, dart: flutter === '3.19' ? '3.3' : '3.4' },
      };
    },
  };
}

const NULL_CHECK = 'Null check operator used on a null value';
const CHECKOUT = 'package:shop_app/checkout/checkout_page.dart';
const COUPON: DartSite[] = [
  d('_CheckoutPageState.build.<anonymous closure>', CHECKOUT, 88),
  d('_CheckoutPageState._applyCoupon', CHECKOUT, 131),
  'gap',
  d('CouponRepository.redeem', 'package:shop_app/data/coupon_repository.dart', 44),
  'gap',
];

const BUGS: SdkBug[] = [
  dartBug('coupon-redeem-null-code', [9, 16], '_TypeError', NULL_CHECK, (f) => [
    ...TAP(f),
    ...COUPON,
    d('Coupon.fromJson', 'package:shop_app/data/models/coupon.dart', 21),
  ]),
  // The same stack, another error.
  dartBug('coupon-redeem-bad-date', [6, 12], 'FormatException', 'Invalid date format\n2025-13-01', (f) => [
    ...TAP(f),
    ...COUPON,
    d('Coupon.fromJson', 'package:shop_app/data/models/coupon.dart', 21),
  ]),
  // The same tap; the cart refresh after the coupon fails.
  dartBug('coupon-refresh-cart-null', [6, 13], '_TypeError', NULL_CHECK, (f) => [
    ...TAP(f),
    ...COUPON.slice(0, 3),
    d('CartNotifier.refresh', 'package:shop_app/cart/cart_notifier.dart', 57),
    'gap',
  ]),
  // Another button of the same page.
  dartBug('checkout-address-range', [6, 13], 'RangeError', 'RangeError (index): Invalid value: Not in inclusive range 0..2: 3', (f) => [
    ...TAP(f),
    d('_CheckoutPageState.build.<anonymous closure>', CHECKOUT, 97),
    d('_CheckoutPageState._selectAddress', CHECKOUT, 160),
  ]),
  // A periodic sync from a timer, no widget involved.
  dartBug('sync-timer-state-error', [6, 12], 'StateError', 'Bad state: No element', () => [
    d('_Timer._runTimers', 'dart:isolate-patch/timer_impl.dart', 398),
    d('SyncService._tick', 'package:shop_app/sync/sync_service.dart', 64),
    'gap',
    d('SyncService._pushPending', 'package:shop_app/sync/sync_service.dart', 90),
  ]),
];

export const dart = sdkCategory(
  'dart',
  'Dart/Flutter (sentry-dart, `other` with `dart` frames): `<asynchronous suspension>` gaps, `package:` URIs vs `file:///` paths, Flutter framework frames by version',
  app,
  'other',
  BUGS,
);
