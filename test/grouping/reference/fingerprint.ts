// Grouping version 3 as computed before issue #30's third round (processors/grouping/fingerprint.ts
// then), the reference the faster code must equal: components, hash, title, culprit, root cause.
import { createHash } from 'node:crypto';
import type { ErrorEvent, ExceptionInfo, RootCause, StackFrame } from '../../../src/records/event.js';
import { exceptionChain } from '../../../processors/grouping/chain.js';
import { chainFrames, componentsV3 } from './components.js';
import { DEFAULT_GROUPING_CONFIG, type GroupingConfig } from '../../../processors/grouping/config.js';
import { frameComponentV1 } from '../../../processors/grouping/legacy/v1.js';
import type { CompiledRules, GroupingResult, GroupingBasis } from '../../../processors/grouping/fingerprint.js';
import { withinGroupingLimits } from './limits.js';

export interface GroupingOptions extends Partial<Pick<GroupingConfig, 'max_frames' | 'in_app_only'>> {
  rules?: CompiledRules;
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
  return createHash('sha256').update(JSON.stringify(components)).digest('hex');
}

function expandDefault(fingerprint: readonly string[], defaults: () => string[]): string[] {
  return fingerprint.flatMap((entry) => (isDefaultPlaceholder(entry) ? defaults() : [entry]));
}

function groupingComponents(event: ErrorEvent, options: GroupingOptions): { components: string[]; basis: GroupingBasis; title?: string } {
  const max_frames = options.max_frames ?? DEFAULT_GROUPING_CONFIG.max_frames;
  const in_app_only = options.in_app_only ?? DEFAULT_GROUPING_CONFIG.in_app_only;
  const exception = event.exception ?? { type: '', value: '' };
  const custom = event.fingerprint;

  const chain = exceptionChain(exception);
  const rules = options.rules;
  let cached: ReturnType<typeof componentsV3> | undefined;
  const defaults = () => (cached ??= componentsV3(chain, event.message, { max_frames, in_app_only, platform: event.platform, verdicts: rules?.verdicts }));
  // The operator's rules outrank the SDK's fingerprint: they are how a team fixes grouping for everyone.
  const ruled = rules?.fingerprint?.(event, chainFrames(chain, event.platform));
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
