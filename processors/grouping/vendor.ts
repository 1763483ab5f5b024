// Marks vendor frames (isVendorFrame, src/records/in-app.ts) with each frame's answer remembered (frame-facts.ts):
// the same frames come back in event after event, and their paths' regex was a good part of the cost.
import type { ErrorEvent, ExceptionInfo } from '../../src/records/event.js';
import { framesAdded, vendorFacts, type FrameFacts, type KnownFacts } from './frame-facts.js';

/** Exceptions of the chain marked at most (validation caps chains far below it). */
const MAX_DEPTH = 64;
/**
 * An event adds at most this many frames to the memory: an app has a bounded set of frames, a
 * stack of frames never seen (a hostile one) would only pay for entries that are never read.
 */
const NEW_FRAMES_PER_EVENT = 64;

/** Sets in_app false on the vendor frames of every exception of the event's chain; returns the facts it looked up. */
export function markVendorFrames(event: ErrorEvent): KnownFacts {
  const known: Array<Array<FrameFacts | undefined>> = [];
  const start = framesAdded();
  let depth = 0;
  for (let e: ExceptionInfo | undefined = event.exception; e !== undefined && depth < MAX_DEPTH; e = e.cause, depth++) {
    const frames = e.stacktrace ?? [];
    const facts = new Array<FrameFacts | undefined>(frames.length);
    for (let f = 0; f < frames.length; f++) {
      const frame = frames[f];
      const found = vendorFacts(frame, event.platform, framesAdded() - start < NEW_FRAMES_PER_EVENT);
      const vendor = typeof found === 'boolean' ? found : found.vendor;
      if (typeof found !== 'boolean') facts[f] = found;
      if (frame.in_app !== false && vendor) frame.in_app = false;
    }
    known.push(facts);
  }
  return known;
}
