// Pure grouping: from an error event to its fingerprint components, grouping hash, title, culprit
// and root cause. No I/O, no clock, no randomness: any worker computes the same result.
import { hash } from 'node:crypto';
import type { ErrorEvent, ExceptionInfo, RootCause, StackFrame } from '../../src/records/event.js';
import { exceptionChain } from './chain.js';
import { chainFrames, componentsV3, type ChainFrames, type Verdicts } from './components.js';
import { DEFAULT_GROUPING_CONFIG, type GroupingConfig } from './config.js';
import type { KnownFacts } from './frame-facts.js';
import { componentsV1, frameComponentV1 } from './legacy/v1.js';
import { componentsV2 } from './legacy/v2/components.js';
import { withinGroupingLimits } from './limits.js';

/** The grouping algorithm new projects use, and existing ones move to (see README "Upgrades"). */
export const CURRENT_GROUPING_VERSION = 3;
export type GroupingVersion = 1 | 2 | 3;

/** What the fingerprint was built from. */
export type GroupingBasis = 'custom' | 'rule' | 'in_app_frames' | 'all_frames' | 'value';

export interface GroupingResult {
  /** Hex sha256 of the components (JSON-encoded as an array, so the join is unambiguous). */
  hash: string;
  components: string[];
  /** How the default components were chosen (for a custom fingerprint: `custom`; for a fingerprint rule: `rule`). */
  basis: GroupingBasis;
  title: string;
  culprit: string;
  root_cause: RootCause;
}

/** Grouping rules from the processor's configuration, compiled (see rules/). */
export interface CompiledRules {
  /** Stack-trace rules: in_app and whether each frame counts. */
  verdicts?: Verdicts;
  /** Fingerprint rules: the first that matches, with `{{ default }}` left for the grouper. */
  fingerprint?: (event: ErrorEvent, chain: readonly ChainFrames[]) => { fingerprint: string[]; title?: string } | undefined;
}

export interface GroupingOptions extends Partial<Pick<GroupingConfig, 'max_frames' | 'in_app_only'>> {
  version?: GroupingVersion;
  rules?: CompiledRules;
  /** The frame facts already looked up for this very event (vendor.ts), its frames unchanged since but for in_app. */
  known?: KnownFacts;
}

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
  return hash('sha256', JSON.stringify(components), 'hex');
}

function expandDefault(fingerprint: readonly string[], defaults: () => string[]): string[] {
  return fingerprint.flatMap((entry) => (isDefaultPlaceholder(entry) ? defaults() : [entry]));
}

/** Only the grouping hash of one version (the issues processor's fallback to version 1 needs no more). */
export function groupingHash(event: ErrorEvent, options: GroupingOptions = {}): string {
  return hashComponents(groupingComponents(withinGroupingLimits(event), options).components);
}

function groupingComponents(event: ErrorEvent, options: GroupingOptions): { components: string[]; basis: GroupingBasis; title?: string } {
  const max_frames = options.max_frames ?? DEFAULT_GROUPING_CONFIG.max_frames;
  const in_app_only = options.in_app_only ?? DEFAULT_GROUPING_CONFIG.in_app_only;
  const exception = event.exception ?? { type: '', value: '' };
  const custom = event.fingerprint;

  if ((options.version ?? CURRENT_GROUPING_VERSION) === 1) {
    const defaults = () => componentsV1(exception, event.message, { max_frames, in_app_only });
    if (Array.isArray(custom) && custom.length > 0) return { components: expandDefault(custom, defaults), basis: 'custom' };
    const components = defaults();
    return { components, basis: 'value' };
  }

  const chain = exceptionChain(exception);
  const rules = options.rules;
  const componentsOf = options.version === 2 ? componentsV2 : componentsV3;
  let cached: ReturnType<typeof componentsV3> | undefined;
  const defaults = () =>
    (cached ??= componentsOf(chain, event.message, { max_frames, in_app_only, platform: event.platform, verdicts: rules?.verdicts, known: options.known }));
  // The operator's rules outrank the SDK's fingerprint: they are how a team fixes grouping for everyone.
  const ruled = rules?.fingerprint?.(event, chainFrames(chain, event.platform, options.known));
  if (ruled !== undefined) return { components: expandDefault(ruled.fingerprint, () => defaults().components), basis: 'rule', title: ruled.title };
  if (Array.isArray(custom) && custom.length > 0) return { components: expandDefault(custom, () => defaults().components), basis: 'custom' };
  const { components, basis } = defaults();
  return { components, basis };
}

export function computeGrouping(received: ErrorEvent, options: GroupingOptions = {}): GroupingResult {
  const event = withinGroupingLimits(received);
  const { components, basis, title: ruleTitle } = groupingComponents(event, options);
  const exception: ExceptionInfo = event.exception ?? { type: '', value: '' };
  const chain = exceptionChain(exception);
  // A synthetic exception (an SDK's stand-in for a message, e.g. captureMessage) has no type of its own: the message is the title.
  const title = ruleTitle ?? titleFor(isSynthetic(exception) ? '' : exception.type, exception.value, event.message);
  const culpritFrame = findCulpritFrame(exception.stacktrace ?? []);
  return {
    hash: hashComponents(components),
    components,
    basis,
    title,
    culprit: culpritFrame ? culpritFor(culpritFrame) : '',
    root_cause: rootCauseOf(chain, title, culpritFrame),
  };
}

/**
 * The innermost exception of the chain and the frame it was thrown at (its own culprit, else the
 * raised exception's); with a chain, `chain` lists every exception's type and value outermost first.
 */
function rootCauseOf(chain: readonly ExceptionInfo[], title: string, raisedAt: StackFrame | undefined): RootCause {
  const root = chain[chain.length - 1];
  if (chain.length === 1) {
    return {
      type: root.type,
      value: root.value,
      frame: raisedAt ? { ...raisedAt } : null,
      summary: raisedAt ? `${title}${summaryLocation(raisedAt)}`.trim() : title,
    };
  }
  const frame = findCulpritFrame(root.stacktrace ?? []) ?? raisedAt;
  const rootTitle = titleFor(root.type, root.value);
  return {
    type: root.type,
    value: root.value,
    frame: frame ? { ...frame } : null,
    summary: frame ? `${rootTitle}${summaryLocation(frame)}`.trim() : rootTitle,
    chain: chain.map(({ type, value }) => ({ type, value })),
  };
}

// ---------------------------------------------------------------------------------------------
// Title, culprit, root cause
// ---------------------------------------------------------------------------------------------

function oneLine(text: string): string {
  return text.replace(WHITESPACE_RUN, ' ').trim();
}

/** Cuts to at most `max` characters (code points), the last being `…` when something was cut. */
export function truncate(text: string, max: number): string {
  // A string has no more code points than UTF-16 units: a short one needs no array of them.
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + ELLIPSIS;
}

/** `<type>: <value>` (value on one line, cut to 100 chars); the message stands in for an empty value. */
/** Whether an SDK made the exception up (Sentry's `mechanism.synthetic`): its type says nothing. */
export function isSynthetic(exception: ExceptionInfo): boolean {
  return (exception.mechanism as { synthetic?: unknown } | undefined)?.synthetic === true;
}

export function titleFor(type: string, value: string, message?: string): string {
  const text = truncate(oneLine(value) || oneLine(message ?? ''), TITLE_VALUE_MAX);
  const head = type.trim();
  if (head && text) return `${head}: ${text}`;
  return head || text;
}

function isUsable(frame: StackFrame): boolean {
  return frameComponentV1(frame) !== undefined;
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
