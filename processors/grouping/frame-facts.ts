// What grouping derives from one frame alone: its language family, its version-3 component and
// whether it is a vendor frame. Events repeat the same frames over and over, so the facts are
// remembered by every field they are derived from (the frame's or the event's platform, filename,
// function, abs_path, module, whether it has an instruction address), in nested maps: no key to
// build, and no two frames can share an entry.
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

/** The frames of one function name in one file, told apart by the rest (mostly one, without abs_path or module). */
interface Remembered {
  readonly absPath: string | undefined;
  readonly module: string | undefined;
  readonly native: boolean;
  readonly facts: FrameFacts;
}
type ByFunction = Map<string | undefined, Remembered[]>;
/** Platform, filename, function: a new function in a known file adds one entry, not a map per field. */
let memory = new Map<string | undefined, Map<string | undefined, ByFunction>>();
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

/** The entries of the frame's platform, file and function, or undefined when none was kept. */
function entriesOf(frame: StackFrame, platform: string | undefined): Remembered[] | undefined {
  return memory.get(platform)?.get(frame.filename)?.get(frame.function);
}

/** The entries of the frame's platform, file and function, made if missing. */
function newEntriesOf(frame: StackFrame, platform: string | undefined): Remembered[] {
  let byFile = memory.get(platform);
  if (byFile === undefined) memory.set(platform, (byFile = new Map()));
  let byFunction = byFile.get(frame.filename);
  if (byFunction === undefined) byFile.set(frame.filename, (byFunction = new Map()));
  let entries = byFunction.get(frame.function);
  if (entries === undefined) byFunction.set(frame.function, (entries = []));
  return entries;
}

/** How many frames were ever added to the memory (an event's callers tell its new frames by the difference). */
let added = 0;
export function framesAdded(): number {
  return added;
}

/**
 * The facts of one frame; `eventPlatform` stands in for a frame without a platform of its own.
 * `remember: false` computes a frame not known yet without keeping it.
 */
export function frameFacts(frame: StackFrame, eventPlatform: string | undefined, remember = true): FrameFacts {
  const platform = frame.platform ?? eventPlatform;
  if (keyLength(frame, platform) > LONGEST_KEY) return computeFacts(frame, eventPlatform);
  const native = frame.instruction_addr !== undefined;
  const entries = entriesOf(frame, platform);
  if (entries !== undefined) {
    for (const entry of entries) if (entry.absPath === frame.abs_path && entry.module === frame.module && entry.native === native) return entry.facts;
  }
  const facts = computeFacts(frame, eventPlatform);
  if (!remember) return facts;
  if (remembered >= REMEMBERED) {
    memory = new Map();
    remembered = 0;
  }
  newEntriesOf(frame, platform).push({ absPath: frame.abs_path, module: frame.module, native, facts });
  remembered++;
  added++;
  return facts;
}

/**
 * The facts looked up for an event's frames, by exception of the chain (outermost first) and frame;
 * none for a frame too long to remember. Those frames are the ones grouping's limits leave as they
 * are, so the facts hold for the same positions of withinGroupingLimits' copy.
 */
export type KnownFacts = ReadonlyArray<ReadonlyArray<FrameFacts | undefined>>;

/**
 * Whether the frame is a vendor frame, as isVendorFrame says, and its facts when they are
 * remembered. A longer frame is tested on its own, without computing its component from uncut names.
 */
export function vendorFacts(frame: StackFrame, eventPlatform: string | undefined, remember: boolean): FrameFacts | boolean {
  return keyLength(frame, frame.platform ?? eventPlatform) > LONGEST_KEY ? isVendorFrame(frame) : frameFacts(frame, eventPlatform, remember);
}
