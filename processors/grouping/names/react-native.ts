// React Native (Hermes) files, version 3: Hermes writes a frame's position as `address at
// index.android.bundle:1:…` (the SDK keeps the `address at ` or makes it `app:///…`), its own
// promise and generator code as `InternalBytecode.js`, and the bundle is `index.android.bundle`
// on Android and `main.jsbundle` on iOS: one bundle, one app.
import { memoize } from '../memo.js';

const ADDRESS_AT = 'address at ';
/** The bundle's name on each OS (also Metro's `index.bundle` in development and Hermes bytecode files). */
const BUNDLE = /(?:^|[/\\])(?:index\.(?:android|ios)\.bundle|main\.jsbundle|index\.bundle|[\w.-]{1,100}\.hbc)$/;
const INTERNAL = /(?:^|[/\\])InternalBytecode\.js$/;
/** React Native's own sources, when source maps resolve the bundle: the bridge's files. */
const BRIDGE_FILE = /(?:^|[/\\])(?:MessageQueue|RCTEventEmitter|ReactNativeRenderer-prod|ReactFabric-prod)\.js$/;
export const BUNDLE_LOCATION = '<bundle>';

/** What a JavaScript frame's file is to React Native: Hermes's own code, the app's bundle, or another file (without `address at `). */
export type ReactNativeFile = { kind: 'internal' } | { kind: 'bundle' } | { kind: 'file' | 'bridge'; file: string };

function reactNativeFileNow(raw: string): ReactNativeFile {
  const file = raw.startsWith(ADDRESS_AT) ? raw.slice(ADDRESS_AT.length) : raw;
  const tail = file.length > 1024 ? file.slice(-1024) : file;
  // Hermes's own code: whether its frames show depends on the engine's version and the kind of call.
  if (INTERNAL.test(tail)) return { kind: 'internal' };
  if (BUNDLE.test(tail)) return { kind: 'bundle' };
  return { kind: BRIDGE_FILE.test(tail) ? 'bridge' : 'file', file };
}

export const reactNativeFile: (file: string) => ReactNativeFile = memoize(reactNativeFileNow);

/**
 * The old architecture's bridge (MessageQueue, the touch emitter) calls into JavaScript through
 * these; the new architecture calls in directly: they show on one architecture only. Only frames of
 * the bundle or of the bridge's own files are read so (a web app may have a `receiveEvent`).
 */
const BRIDGE_FUNCTIONS = new Set([
  '__guard',
  '__callFunction',
  '__invokeCallback',
  'callFunctionReturnFlushedQueue',
  'invokeCallbackAndReturnFlushedQueue',
  'flushedQueue',
  'receiveTouches',
  'receiveEvent',
]);

export function isReactNativeBridgeFunction(name: string): boolean {
  return BRIDGE_FUNCTIONS.has(name);
}
