// Grouping version 1, frozen: the default components as Faultline computed them before version 2.
// Kept so that events of issues opened under version 1 still find them while a project moves to
// the current version (the issues processor's fallback, see ../README.md "Upgrades"). Never change
// what this file computes: a changed component is a split issue.
import type { ExceptionInfo, StackFrame } from '../../../src/records/event.js';
import { ANONYMOUS, normalizeFilename, normalizeFunction, parameterize } from './normalize-v1.js';

export interface V1Options {
  max_frames: number;
  in_app_only: boolean;
}

/** `<module or basename(filename)>:<normalized function>`, or undefined for a frame with neither. */
export function frameComponentV1(frame: StackFrame): string | undefined {
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

/** Version 1 looked at the raised exception only (it knew no `cause`). */
export function componentsV1(exception: ExceptionInfo, message: string | undefined, options: V1Options): string[] {
  const { type, value } = exception;
  const usable: { frame: StackFrame; component: string }[] = [];
  for (const frame of exception.stacktrace ?? []) {
    const component = frameComponentV1(frame);
    if (component !== undefined) usable.push({ frame, component });
  }
  const inApp = usable.filter((f) => f.frame.in_app === true);
  if (usable.length > 0) {
    const useInApp = options.in_app_only && inApp.length > 0;
    const chosen = collapseRecursion((useInApp ? inApp : usable).map((f) => f.component));
    return [type, ...chosen.slice(-options.max_frames)];
  }
  return [type, parameterize(value !== '' ? value : (message ?? ''))];
}

/** Consecutive identical frames (direct recursion) count once. */
function collapseRecursion(components: string[]): string[] {
  return components.filter((c, i) => i === 0 || c !== components[i - 1]);
}
