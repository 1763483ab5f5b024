// Grouping version 3's default components (version 2's, frozen, are in legacy/v2/): for each exception of the chain, its type and its
// frames (those of a cause only where they differ from the exception that wraps it), with
// uninformative frames dropped and recursion collapsed; without any frame, the types and the
// parameterized message of the root cause.
import type { ExceptionInfo, StackFrame } from '../../../src/records/event.js';
import { familyOf, type Family } from '../../../processors/grouping/family.js';
import { dialectOfPlatform, frameComponentV3 } from '../../../processors/grouping/frames.js';
import { canonicalEngineMessage, canonicalType } from '../../../processors/grouping/names/engine-messages.js';
import { parameterizeMessageV3 } from '../../../processors/grouping/names/messages.js';
import { canonicalRuntimeMessage } from '../../../processors/grouping/names/runtime-messages.js';
import { collapseCycles } from '../../../processors/grouping/recursion.js';
import { isWrapper } from '../../../processors/grouping/wrappers.js';

/** What the rules (or the frame itself) decided: whether it is the app's code and whether it counts. */
export interface FrameVerdict {
  in_app: boolean | undefined;
  group: boolean;
}

/** The frames of one exception with their families, as grouping rules see them. */
export interface ChainFrames {
  exception: ExceptionInfo;
  frames: readonly StackFrame[];
  families: Family[];
}

export type Verdicts = (chain: readonly ChainFrames[]) => FrameVerdict[][];

export interface ComponentOptions {
  max_frames: number;
  in_app_only: boolean;
  platform: string | undefined;
  /** Stack-trace rules; without them each frame keeps its own in_app and counts. */
  verdicts?: Verdicts;
}

export type Basis = 'in_app_frames' | 'all_frames' | 'value';

/** A status or error code leading a message: gRPC's `UNAVAILABLE: …`, `DEADLINE_EXCEEDED: …`, errno's `ENOENT: …`. */
const STATUS_CODE = /^([A-Z][A-Z0-9]{2,}(?:_[A-Z0-9]+)*):/;

/** Types whose message depends on the runtime's version: Java 14+ explains a NullPointerException, earlier versions say nothing. */
const MESSAGE_VARIES_BY_RUNTIME = new Set(['java.lang.NullPointerException', 'NullPointerException']);

/** How many of a JavaScript stack's innermost informative frames count (see componentsV2). */
export const JAVASCRIPT_WINDOW = 8;

/** Marks where the next exception of the chain starts, so `[A, f, B]` and `[A, f:B]` never meet. */
export const CAUSE_PREFIX = 'caused by: ';

export function chainFrames(chain: readonly ExceptionInfo[], platform: string | undefined): ChainFrames[] {
  return chain.map((exception) => {
    const frames = exception.stacktrace ?? [];
    return { exception, frames, families: frames.map((frame) => familyOf(frame, platform)) };
  });
}

function ownVerdicts(chain: readonly ChainFrames[]): FrameVerdict[][] {
  return chain.map(({ frames }) => frames.map((frame) => ({ in_app: frame.in_app, group: true })));
}

/** The components of each exception's frames, in order, before in-app selection. */
interface Candidate {
  component: string;
  inApp: boolean;
  /** JavaScript engines keep a window of frames (see componentsV3). */
  javascript: boolean;
}

/** Version 3 reads at most this much of a message (what tells two bugs apart is at its start). */
const LONGEST_MESSAGE = 4096;

/** Version 3's message: one wording per engine and runtime, then parameterized. */
function messageComponent(text: string): string {
  return parameterizeMessageV3(canonicalRuntimeMessage(canonicalEngineMessage(text.length > LONGEST_MESSAGE ? text.slice(0, LONGEST_MESSAGE) : text)));
}

/**
 * Each wrapper that has a cause (AggregateException, ExecutionException… see wrappers.ts) gives way
 * to the cause, whose frames are the wrapper's followed by its own (those both start with once).
 */
function unwrap(chain: readonly ExceptionInfo[], candidates: Candidate[][]): { chain: readonly ExceptionInfo[]; candidates: Candidate[][] } {
  if (chain.length === 1 || !chain.some(isWrapper)) return { chain, candidates };
  const outChain: ExceptionInfo[] = [];
  const outCandidates: Candidate[][] = [];
  let carried: Candidate[] = [];
  for (let e = 0; e < chain.length; e++) {
    const own = candidates[e];
    let shared = 0;
    while (shared < carried.length && shared < own.length && carried[shared].component === own[shared].component) shared++;
    const joined = carried.length === 0 ? own : [...carried, ...own.slice(shared)];
    if (e < chain.length - 1 && isWrapper(chain[e])) {
      carried = joined;
      continue;
    }
    carried = [];
    outChain.push(chain[e]);
    outCandidates.push(joined);
  }
  return { chain: outChain, candidates: outCandidates };
}

/** A Rust panic's type is `panic` whatever went wrong: the message says which (an unwrap on None, an index out of bounds). */
function isNativePanic(exception: ExceptionInfo, platform: string | undefined): boolean {
  return exception.type === 'panic' && platform === 'native';
}

export function componentsV3(
  fullChain: readonly ExceptionInfo[],
  message: string | undefined,
  options: ComponentOptions,
): { components: string[]; basis: Basis } {
  const withFrames = chainFrames(fullChain, options.platform);
  const verdicts = (options.verdicts ?? ownVerdicts)(withFrames);
  const { chain, candidates } = unwrap(
    fullChain,
    withFrames.map(({ frames, families }, e) => frameCandidates(frames, families, verdicts[e], options.platform)),
  );

  if (candidates.every((list) => list.length === 0)) {
    const root = chain[chain.length - 1];
    const text = root.value !== '' ? root.value : chain.length === 1 ? (message ?? '') : '';
    return { components: [...typesOf(chain), messageComponent(text)], basis: 'value' };
  }

  // JavaScript engines keep different windows of frames (V8 ten by default, built-ins and `await`
  // callers included): only the innermost frames all of them show count.
  // Recursion first (its window may hold more than a turn), then the window.
  const windowed = candidates.map((list) => {
    const collapsed = collapseCycles(list, (c) => c.component);
    return list.some((c) => c.javascript) ? collapsed.slice(-JAVASCRIPT_WINDOW) : collapsed;
  });
  const useInApp = options.in_app_only && windowed.some((list) => list.some((c) => c.inApp));
  const components: string[] = [];
  let enclosing: string[] = [];
  chain.forEach((exception, e) => {
    const chosen = collapseCycles(windowed[e].filter((c) => !useInApp || c.inApp).map((c) => c.component));
    components.push(typeComponent(exception, e));
    // A cause's oldest frames are those of the exception that wraps it (Java's "... 12 more"): they count once.
    let shared = 0;
    while (shared < chosen.length && shared < enclosing.length && chosen[shared] === enclosing[shared]) shared++;
    components.push(...chosen.slice(shared).slice(-options.max_frames));
    enclosing = chosen;
  });
  const root = chain[chain.length - 1];
  const code = STATUS_CODE.exec(root.value)?.[1];
  if (code !== undefined) components.push(`code: ${code}`);
  // A wrapped cause is often another system's error (a database's, a remote service's) under a
  // driver's generic type: what it says is what tells two of them apart.
  else if (chain.length > 1 && !MESSAGE_VARIES_BY_RUNTIME.has(root.type)) components.push(`root cause: ${messageComponent(root.value.trim())}`);
  else if (isNativePanic(root, options.platform)) components.push(`panic: ${messageComponent(root.value.trim())}`);
  return { components, basis: useInApp ? 'in_app_frames' : 'all_frames' };
}

/**
 * The components of the frames that count. A module-level loop, not a closure made per event:
 * V8 holds optimized code only weakly from the feedback vector, so a per-call closure's code dies
 * at each major GC and was recompiled every few seconds under load (kept-appenders.ts).
 */
function frameCandidates(
  frames: readonly StackFrame[],
  families: readonly Family[],
  verdicts: readonly FrameVerdict[],
  platform: string | undefined,
): Candidate[] {
  const out: Candidate[] = [];
  const javascript = families.includes('javascript');
  const eventDialect = dialectOfPlatform(platform);
  for (let f = 0; f < frames.length; f++) {
    const verdict = verdicts[f];
    if (!verdict.group) continue;
    const own = frames[f].platform;
    const component = frameComponentV3(frames[f], families[f], own === undefined ? eventDialect : dialectOfPlatform(own));
    if (component !== undefined) out.push({ component, inApp: verdict.in_app === true, javascript });
  }
  return out;
}

function typeComponent(exception: ExceptionInfo, index: number): string {
  const type = canonicalType(exception.type, exception.value);
  return index === 0 ? type : CAUSE_PREFIX + type;
}

function typesOf(chain: readonly ExceptionInfo[]): string[] {
  return chain.map(typeComponent);
}
