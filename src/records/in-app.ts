// Which frames are the sender's own code. Browser SDKs mark every frame in_app (they cannot tell),
// so frames of installed packages and of the Sentry SDK itself (a `node_modules` path segment,
// `@sentry/…` or `@sentry-internal/…`, before or after symbolication) are set not in-app here,
// whatever the SDK said: they are never where the bug is, and they must not group or be the culprit.
// The grouping processor marks them (processors/grouping/vendor.ts), remembering each frame's answer.
import type { StackFrame } from './event.js';

const VENDOR = /(?:^|[\\/])(?:node_modules|@sentry(?:-internal)?)[\\/]/;
const SDK_MODULE = /^@sentry(?:-internal)?\//;
/** Paths past this length are not tested (validation caps them well below; this bounds the work anyway). */
const MAX_PATH = 4096;

/** Whether the frame is in an installed package or in the Sentry SDK. */
export function isVendorFrame(frame: StackFrame): boolean {
  for (const path of [frame.abs_path, frame.filename]) if (path !== undefined && path.length <= MAX_PATH && VENDOR.test(path)) return true;
  return frame.module !== undefined && SDK_MODULE.test(frame.module);
}
