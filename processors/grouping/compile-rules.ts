// The grouping rules of the processor's configuration, as the grouper calls them: stack-trace rules
// give each frame of each exception its in_app and whether it counts; fingerprint rules see the
// whole chain, the event's message, level, release and tags, and every frame.
import type { ErrorEvent } from '../../src/records/event.js';
import type { ChainFrames, FrameVerdict } from './components.js';
import type { CompiledRules } from './fingerprint.js';
import { applyStacktraceRules, matchFingerprintRules, type GroupingRules, type RuleFrame } from './rules/index.js';

function ruleFrames({ frames, families }: ChainFrames): RuleFrame[] {
  return frames.map((frame, i) => ({
    function: frame.function,
    module: frame.module,
    filename: frame.filename,
    abs_path: frame.abs_path,
    in_app: frame.in_app,
    family: families[i],
  }));
}

/** Undefined when there are no rules: the grouper then does no rule work at all. */
export function compileRules(rules: GroupingRules): CompiledRules | undefined {
  const { stacktrace, fingerprint } = rules;
  if (stacktrace.length === 0 && fingerprint.length === 0) return undefined;
  return {
    // Per exception: a range action (`^-group`) stays within the stack it matched in.
    verdicts:
      stacktrace.length === 0 ? undefined : (chain): FrameVerdict[][] => chain.map((exception) => applyStacktraceRules(stacktrace, ruleFrames(exception))),
    fingerprint:
      fingerprint.length === 0
        ? undefined
        : (event: ErrorEvent, chain: readonly ChainFrames[]) =>
            matchFingerprintRules(fingerprint, {
              exceptions: chain.map(({ exception }) => ({ type: exception.type, value: exception.value })),
              message: event.message,
              level: event.level,
              release: event.release,
              tags: event.tags,
              // The root cause's frames last: `{{ function }}` names where the chain started.
              frames: chain.flatMap(ruleFrames),
            }),
  };
}
