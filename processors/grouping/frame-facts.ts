// What grouping derives from one frame alone: its language family, its version-3 component and
// whether it is a vendor frame. Events repeat the same frames over and over, so the facts are
// remembered by every field they are derived from (the frame's or the event's platform, whether it
// has an instruction address, function, module, filename, abs_path), in nested maps: one lookup per
// field, no key to build, and no two frames can share an entry.
import type { StackFrame } from '../../src/records/event.js';
import { isVendorFrame } from '../../src/records/in-app.js';
import { familyOf, type Family } from './family.js';
import { dialectOfPlatform, frameComponentV3 } from './frames.js';
import { MAX_NAME_LENGTH } from './limits.js';

export interface FrameFacts {
  readonly family: Family;
  /** Undefined when the frame carries no information for grouping. */
  readonly component: string | undefined;
  /** In an installed package or the Sentry SDK (src/records/in-app.ts). */
  readonly vendor: boolean;
}

/**
 * Frames whose fields are longer than this in all are computed each time, not remembered: so a
 * remembered frame is one that grouping's limits leave as it is, and the memory has a bound.
 */
const LONGEST_KEY = MAX_NAME_LENGTH;
const REMEMBERED = 20_000;

type Level<T> = Map<string | undefined, T>;
type ByPath = Level<Level<FrameFacts>>;
type ByFile = Level<ByPath>;
type ByFunction = Level<ByFile>;
/** Platform, then instruction address or not, function, filename, abs_path, module. */
type ByPlatform = Level<[ByFunction, ByFunction]>;

let memory: ByPlatform = new Map();
let remembered = 0;

function computeFacts(frame: StackFrame, eventPlatform: string | undefined): FrameFacts {
  const family = familyOf(frame, eventPlatform);
  const component = frameComponentV3(frame, family, dialectOfPlatform(frame.platform ?? eventPlatform));
  return { family, component, vendor: isVendorFrame(frame) };
}

function lengthOf(text: string | undefined): number {
  if (text === undefined) return 0;
  return typeof text === 'string' ? text.length : Infinity;
}

function keyLength(frame: StackFrame, platform: string | undefined): number {
  return lengthOf(platform) + lengthOf(frame.function) + lengthOf(frame.filename) + lengthOf(frame.abs_path) + lengthOf(frame.module);
}

/** The map of the frame's last key (its module), made on the way if missing. */
function leafOf(frame: StackFrame, platform: string | undefined): Level<FrameFacts> {
  let byAddress = memory.get(platform);
  if (byAddress === undefined) memory.set(platform, (byAddress = [new Map(), new Map()]));
  const byFunction = byAddress[frame.instruction_addr === undefined ? 0 : 1];
  let byFile = byFunction.get(frame.function);
  if (byFile === undefined) byFunction.set(frame.function, (byFile = new Map()));
  let byPath = byFile.get(frame.filename);
  if (byPath === undefined) byFile.set(frame.filename, (byPath = new Map()));
  let byModule = byPath.get(frame.abs_path);
  if (byModule === undefined) byPath.set(frame.abs_path, (byModule = new Map()));
  return byModule;
}

/** The facts of one frame; `eventPlatform` stands in for a frame without a platform of its own. */
export function frameFacts(frame: StackFrame, eventPlatform: string | undefined): FrameFacts {
  const platform = frame.platform ?? eventPlatform;
  if (keyLength(frame, platform) > LONGEST_KEY) return computeFacts(frame, eventPlatform);
  const byModule = leafOf(frame, platform);
  const known = byModule.get(frame.module);
  if (known !== undefined) return known;
  const facts = computeFacts(frame, eventPlatform);
  if (remembered >= REMEMBERED) {
    memory = new Map();
    remembered = 0;
    return facts;
  }
  byModule.set(frame.module, facts);
  remembered++;
  return facts;
}

/**
 * Whether the frame is a vendor frame, as isVendorFrame says, from the facts when they are
 * remembered: the strings are then short enough that grouping's limits do not cut them. A longer
 * frame is tested on its own, without computing its component from uncut names.
 */
export function isVendor(frame: StackFrame, eventPlatform: string | undefined): boolean {
  return keyLength(frame, frame.platform ?? eventPlatform) > LONGEST_KEY ? isVendorFrame(frame) : frameFacts(frame, eventPlatform).vendor;
}
