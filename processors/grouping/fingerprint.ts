// Pure grouping: from an error event to its fingerprint components, grouping hash, title, culprit
// and root cause. No I/O, no clock, no randomness: any worker computes the same result.
import { createHash } from 'node:crypto';
import type { ErrorEvent, RootCause, StackFrame } from '../../src/records/event.js';
import { DEFAULT_GROUPING_CONFIG, type GroupingConfig } from './config.js';
import { ANONYMOUS, normalizeFilename, normalizeFunction, parameterize } from './normalize.js';

/** What the fingerprint was built from. */
export type GroupingBasis = 'custom' | 'in_app_frames' | 'all_frames' | 'value';

export interface GroupingResult {
  /** Hex sha256 of the components (JSON-encoded as an array, so the join is unambiguous). */
  hash: string;
  components: string[];
  /** How the default components were chosen (for a custom fingerprint: `custom`). */
  basis: GroupingBasis;
  title: string;
  culprit: string;
  root_cause: RootCause;
}

export type GroupingOptions = Partial<Pick<GroupingConfig, 'max_frames' | 'in_app_only'>>;

/** The title keeps at most this many characters of the value (the last one being `…`). */
export const TITLE_VALUE_MAX = 100;
const ELLIPSIS = '…';

const DEFAULT_PLACEHOLDER = /^\{\{\s*default\s*\}\}$/i;
const WHITESPACE_RUN = /\s+/g;
const QUERY_OR_FRAGMENT = /[?#].*$/s;

/** `{{ default }}`, `{{default}}`, `{{  DEFAULT }}`… */
export function isDefaultPlaceholder(entry: string): boolean {
  return DEFAULT_PLACEHOLDER.test(entry.trim());
}

/** Hex sha256 over the JSON encoding of the components. */
export function hashComponents(components: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(components)).digest('hex');
}

export function computeGrouping(event: ErrorEvent, options: GroupingOptions = {}): GroupingResult {
  const maxFrames = options.max_frames ?? DEFAULT_GROUPING_CONFIG.max_frames;
  const inAppOnly = options.in_app_only ?? DEFAULT_GROUPING_CONFIG.in_app_only;
  const type = event.exception?.type ?? '';
  const value = event.exception?.value ?? '';
  const frames = event.exception?.stacktrace ?? [];

  const defaults = defaultComponents(type, value, event.message, frames, maxFrames, inAppOnly);
  let components = defaults.components;
  let basis = defaults.basis;
  const custom = event.fingerprint;
  if (Array.isArray(custom) && custom.length > 0) {
    components = custom.flatMap((entry) => (isDefaultPlaceholder(entry) ? defaults.components : [entry]));
    basis = 'custom';
  }

  const title = titleFor(type, value, event.message);
  const culpritFrame = findCulpritFrame(frames);
  return {
    hash: hashComponents(components),
    components,
    basis,
    title,
    culprit: culpritFrame ? culpritFor(culpritFrame) : '',
    root_cause: {
      type,
      value,
      frame: culpritFrame ? { ...culpritFrame } : null,
      summary: culpritFrame ? `${title}${summaryLocation(culpritFrame)}`.trim() : title,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Default components
// ---------------------------------------------------------------------------------------------

/** `<module or basename(filename)>:<normalized function>`, or undefined for a frame with neither. */
export function frameComponent(frame: StackFrame): string | undefined {
  const fn = normalizeFunction(frame.function);
  const location = frameLocation(frame);
  if (fn === undefined && location === undefined) return undefined;
  return `${location ?? ANONYMOUS}:${fn ?? ANONYMOUS}`;
}

function frameLocation(frame: StackFrame): string | undefined {
  const module = frame.module?.trim();
  if (module) return module;
  const file = frame.filename ?? frame.abs_path;
  if (file === undefined) return undefined;
  const base = normalizeFilename(file);
  return base === '' ? undefined : base;
}

function defaultComponents(
  type: string,
  value: string,
  message: string | undefined,
  frames: readonly StackFrame[],
  maxFrames: number,
  inAppOnly: boolean,
): { components: string[]; basis: GroupingBasis } {
  const usable: { frame: StackFrame; component: string }[] = [];
  for (const frame of frames) {
    const component = frameComponent(frame);
    if (component !== undefined) usable.push({ frame, component });
  }
  const inApp = usable.filter((f) => f.frame.in_app === true);
  if (usable.length > 0) {
    const useInApp = inAppOnly && inApp.length > 0;
    const chosen = collapseRecursion((useInApp ? inApp : usable).map((f) => f.component));
    return { components: [type, ...chosen.slice(-maxFrames)], basis: useInApp ? 'in_app_frames' : 'all_frames' };
  }
  return { components: [type, parameterize(value !== '' ? value : (message ?? ''))], basis: 'value' };
}

/** Consecutive identical frames (direct recursion) count once, so stack depth does not split groups. */
function collapseRecursion(components: string[]): string[] {
  return components.filter((c, i) => i === 0 || c !== components[i - 1]);
}

// ---------------------------------------------------------------------------------------------
// Title, culprit, root cause
// ---------------------------------------------------------------------------------------------

function oneLine(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim();
}

/** Cuts to at most `max` characters (code points), the last being `…` when something was cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + ELLIPSIS;
}

/** `<type>: <value>` (value on one line, cut to 100 chars); the message stands in for an empty value. */
export function titleFor(type: string, value: string, message?: string): string {
  const text = truncate(oneLine(value) || oneLine(message ?? ''), TITLE_VALUE_MAX);
  const head = type.trim();
  if (head && text) return `${head}: ${text}`;
  return head || text;
}

function isUsable(frame: StackFrame): boolean {
  return frameComponent(frame) !== undefined;
}

/** The crashing frame: the last in-app frame, else the last frame (frames with neither function nor file are skipped). */
export function findCulpritFrame(frames: readonly StackFrame[]): StackFrame | undefined {
  let last: StackFrame | undefined;
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i];
    if (!isUsable(frame)) continue;
    if (frame.in_app === true) return frame;
    last ??= frame;
  }
  return last;
}

function cleanFunction(frame: StackFrame): string | undefined {
  const fn = frame.function === undefined ? '' : oneLine(frame.function);
  return fn === '' ? undefined : fn;
}

function cleanPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const clean = path.trim().replace(QUERY_OR_FRAGMENT, '');
  return clean === '' ? undefined : clean;
}

/** `<function> (<module or filename>)`, or whichever of the two the frame has. */
export function culpritFor(frame: StackFrame): string {
  const fn = cleanFunction(frame);
  const where = cleanPath(frame.module) ?? cleanPath(frame.filename) ?? cleanPath(frame.abs_path);
  if (fn && where) return `${fn} (${where})`;
  return fn ?? where ?? '';
}

/** ` in handleClick (src/app.js:42:7)`: the only place line and column appear. */
function summaryLocation(frame: StackFrame): string {
  const fn = cleanFunction(frame);
  const file = cleanPath(frame.filename) ?? cleanPath(frame.abs_path) ?? cleanPath(frame.module);
  let where = file;
  if (where !== undefined && frame.lineno !== undefined) {
    where += `:${frame.lineno}`;
    if (frame.colno !== undefined) where += `:${frame.colno}`;
  }
  if (fn && where) return ` in ${fn} (${where})`;
  if (fn) return ` in ${fn}`;
  return where ? ` at ${where}` : '';
}
