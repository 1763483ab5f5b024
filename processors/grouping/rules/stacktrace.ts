// Stack-trace rules: `matcher:value [matcher:value …] action [action …]`, which mark frames in or
// out of the app (`+app`, `-app`) and keep them in or out of grouping (`+group`, `-group`), on the
// matching frame or, with `^` / `v`, on the frames above / below it.
import { FRAME_MATCHER_KEYS, FrameMatchers, type FrameTest, FrameView, type RuleFrame, familyBit } from './frames.js';
import { Cursor } from './syntax.js';

/** What the rules decided for one frame. */
export interface FrameVerdict {
  in_app: boolean | undefined;
  /** false when a `-group` rule keeps the frame out of grouping. */
  group: boolean;
}

export interface StacktraceAction {
  key: 'app' | 'group';
  flag: boolean;
  /** `self`: the matching frame; `up` (`^`): the frames after it in the list (towards the crash); `down` (`v`): those before it (towards the entry point). */
  range: 'self' | 'up' | 'down';
}

export interface StacktraceRule {
  /** The rule as written. */
  readonly text: string;
  /** Bit mask of the families a frame must be in to match (`familyBit`); all families when the rule names none. */
  readonly families: number;
  /** The other matchers' tests, cheapest first, negation included. */
  readonly tests: readonly FrameTest[];
  readonly actions: readonly StacktraceAction[];
}

/** Matcher keys Sentry accepts in stack-trace rules that these rules do not (they see frames only). */
const UNSUPPORTED_KEYS = new Set(['type', 'value', 'error.type', 'error.value', 'mechanism', 'error.mechanism', 'category']);
const UNSUPPORTED_VARIABLES = /^(max-frames|min-frames|invert-stacktrace|category)=/;
const ACTION = /^([\^v]?)([+-])([a-z-]+)$/;

/** Parses one stack-trace rule. Throws RuleSyntaxError (with the column) when it is not one. */
export function parseStacktraceRule(text: string): StacktraceRule {
  const cursor = new Cursor(text);
  const matchers = new FrameMatchers();
  const actions: StacktraceAction[] = [];
  const seen = new Map<string, string>();
  while (cursor.skipSpace()) {
    const start = cursor.pos;
    if (cursor.atMatcher()) {
      const token = cursor.matcher();
      if (actions.length) throw cursor.error('matchers come before the actions', token.start);
      if (matchers.add(cursor, token)) continue;
      if (UNSUPPORTED_KEYS.has(token.key))
        throw cursor.error(`matcher "${token.key}" is not available in stack-trace rules, which see frames only (use it in a fingerprint rule)`, token.start);
      throw cursor.error(`unknown matcher "${token.key}" (known: ${FRAME_MATCHER_KEYS.join(', ')})`, token.start);
    }
    if (cursor.startsWith('[') || cursor.startsWith('|'))
      throw cursor.error('caller and callee matchers ([ … ] | and | [ … ]) are not supported: match the frame itself');
    const word = cursor.word();
    if (UNSUPPORTED_VARIABLES.test(word)) throw cursor.error(`"${word}": variable actions (max-frames, min-frames, category) are not supported`, start);
    if (word.startsWith('#')) throw cursor.error('a comment must be on a line of its own', start);
    const action = ACTION.exec(word);
    if (!action || (action[3] !== 'app' && action[3] !== 'group'))
      throw cursor.error(`expected a matcher (key:value) or an action (+app, -app, +group, -group, optionally after ^ or v), not "${word}"`, start);
    const [, rangeSign, flagSign, key] = action;
    const range = rangeSign === '^' ? 'up' : rangeSign === 'v' ? 'down' : 'self';
    const target = `${rangeSign}${key}`;
    const earlier = seen.get(target);
    if (earlier !== undefined) throw cursor.error(`"${word}" repeats or contradicts "${earlier}" in the same rule`, start);
    seen.set(target, word);
    actions.push({ key: key as 'app' | 'group', flag: flagSign === '+', range });
  }
  if (matchers.count === 0) throw cursor.error('a rule needs at least one matcher (for example path:**/vendor/**) before its actions', 0);
  if (actions.length === 0) throw cursor.error('a rule needs at least one action after its matchers: +app, -app, +group or -group');
  return { text, families: matchers.families, tests: matchers.tests(), actions };
}

/**
 * One verdict per frame (same order). `in_app` starts as the frame's own and `group` as true; each
 * rule in turn, first to last, finds the frames it matches (seeing in_app as earlier rules left
 * it) and then applies its actions, so later rules override earlier ones.
 */
export function applyStacktraceRules(rules: readonly StacktraceRule[], frames: readonly RuleFrame[]): FrameVerdict[] {
  const count = frames.length;
  const verdicts: FrameVerdict[] = new Array<FrameVerdict>(count);
  for (let i = 0; i < count; i++) verdicts[i] = { in_app: frames[i].in_app, group: true };
  if (rules.length === 0 || count === 0) return verdicts;

  let present = 0;
  for (const frame of frames) present |= familyBit(frame.family);
  let views: FrameView[] | undefined;
  const matched: number[] = [];
  for (const rule of rules) {
    // A rule for families the stack does not have costs one AND.
    if ((rule.families & present) === 0) continue;
    views ??= frames.map((frame, i) => new FrameView(frame, verdicts[i]));
    matched.length = 0;
    nextFrame: for (let i = 0; i < count; i++) {
      const view = views[i];
      if ((view.bit & rule.families) === 0) continue;
      for (const test of rule.tests) if (!test(view)) continue nextFrame;
      matched.push(i);
    }
    for (const index of matched) for (const action of rule.actions) apply(action, verdicts, index);
  }
  return verdicts;
}

function apply(action: StacktraceAction, verdicts: FrameVerdict[], index: number): void {
  const from = action.range === 'self' ? index : action.range === 'up' ? index + 1 : 0;
  const to = action.range === 'self' ? index + 1 : action.range === 'up' ? verdicts.length : index;
  for (let i = from; i < to; i++) {
    if (action.key === 'app') verdicts[i].in_app = action.flag;
    else verdicts[i].group = action.flag;
  }
}
