// React Native (Hermes) files, version 3: Hermes writes a frame's position as `address at
// index.android.bundle:1:…` (the SDK keeps the `address at ` or makes it `app:///…`), its own
// promise and generator code as `InternalBytecode.js`, and the bundle is `index.android.bundle`
// on Android and `main.jsbundle` on iOS: one bundle, one app.

const ADDRESS_AT = 'address at ';
/** The bundle's name on each OS (also Metro's `index.bundle` in development and Hermes bytecode files). */
const BUNDLE = /(?:^|[/\\])(?:index\.(?:android|ios)\.bundle|main\.jsbundle|index\.bundle|[\w.-]{1,100}\.hbc)$/;
const INTERNAL = /(?:^|[/\\])InternalBytecode\.js$/;
export const BUNDLE_LOCATION = '<bundle>';

/** The file without Hermes's `address at ` prefix. */
export function withoutAddressAt(file: string): string {
  return file.startsWith(ADDRESS_AT) ? file.slice(ADDRESS_AT.length) : file;
}

/** Hermes's own code: whether its frames show depends on the engine's version and the kind of call. */
export function isHermesInternal(file: string): boolean {
  return INTERNAL.test(file);
}

/** The React Native bundle, whichever OS built it. */
export function isReactNativeBundle(file: string): boolean {
  return BUNDLE.test(file.length > 1024 ? file.slice(-1024) : file);
}

/**
 * The old architecture's bridge (MessageQueue, the touch emitter) calls into JavaScript through
 * these; the new architecture calls in directly: they show on one architecture only.
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
