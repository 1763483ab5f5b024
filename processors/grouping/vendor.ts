// markVendorFrames (src/records/in-app.ts) with each frame's answer remembered (frame-facts.ts):
// the same frames come back in event after event, and their paths' regex was a good part of the cost.
import type { ErrorEvent, ExceptionInfo } from '../../src/records/event.js';
import { isVendor } from './frame-facts.js';

/** As many exceptions of the chain as markVendorFrames marks. */
const MAX_DEPTH = 64;

/** Sets in_app false on the vendor frames of every exception of the event's chain. */
export function markVendorFrames(event: ErrorEvent): void {
  let depth = 0;
  for (let e: ExceptionInfo | undefined = event.exception; e !== undefined && depth < MAX_DEPTH; e = e.cause, depth++) {
    const frames = e.stacktrace;
    if (frames === undefined) continue;
    for (const frame of frames) if (frame.in_app !== false && isVendor(frame, event.platform)) frame.in_app = false;
  }
}
