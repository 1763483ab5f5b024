// Grouping reads what senders wrote with many regexes: every string it reads is cut to a known
// length first, whatever the validation in front of it was configured to keep, so the work per
// event has a bound (docs/security.md "Hostile input").
import type { ErrorEvent, ExceptionInfo, StackFrame } from '../../src/records/event.js';
import { exceptionChain } from './chain.js';

/** Function, module and file names, exception types: validation's default `max_string_length`. */
export const MAX_NAME_LENGTH = 1024;
/** Messages and exception values: validation's default `max_message_length`. */
export const MAX_MESSAGE_LENGTH = 8192;

const FRAME_NAMES = ['function', 'module', 'filename', 'abs_path', 'platform'] as const;

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max);
}

function fits(text: string | undefined): boolean {
  return (text?.length ?? 0) <= MAX_NAME_LENGTH;
}

/** Each of FRAME_NAMES, read by name: a loop over the keys was a keyed load per field, in every frame of every event. */
function frameFits(frame: StackFrame): boolean {
  return fits(frame.function) && fits(frame.module) && fits(frame.filename) && fits(frame.abs_path) && fits(frame.platform);
}

function exceptionFits(outermost: ExceptionInfo): boolean {
  for (let e: ExceptionInfo | undefined = outermost; e !== undefined; e = e.cause) {
    if (e.type.length > MAX_NAME_LENGTH || e.value.length > MAX_MESSAGE_LENGTH || (e.module?.length ?? 0) > MAX_NAME_LENGTH) return false;
    if (!(e.stacktrace ?? []).every(frameFits)) return false;
  }
  return true;
}

function cappedFrame(frame: StackFrame): StackFrame {
  if (frameFits(frame)) return frame;
  const copy = { ...frame };
  for (const key of FRAME_NAMES) {
    const text = copy[key];
    if (text !== undefined) copy[key] = cut(text, MAX_NAME_LENGTH);
  }
  return copy;
}

/** The chain with its strings cut, rebuilt from the root cause outwards (no recursion). */
function cappedException(outermost: ExceptionInfo): ExceptionInfo {
  const chain = exceptionChain(outermost);
  let cause: ExceptionInfo | undefined;
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i];
    const copy: ExceptionInfo = { ...e, type: cut(e.type, MAX_NAME_LENGTH), value: cut(e.value, MAX_MESSAGE_LENGTH) };
    if (e.module !== undefined) copy.module = cut(e.module, MAX_NAME_LENGTH);
    if (e.stacktrace !== undefined) copy.stacktrace = e.stacktrace.map(cappedFrame);
    if (cause !== undefined) copy.cause = cause;
    cause = copy;
  }
  return cause ?? outermost;
}

/** The event itself when every string grouping reads is within its limit, else a copy with them cut. */
export function withinGroupingLimits(event: ErrorEvent): ErrorEvent {
  const message = event.message;
  const platform = event.platform;
  const fits =
    (message?.length ?? 0) <= MAX_MESSAGE_LENGTH &&
    (platform?.length ?? 0) <= MAX_NAME_LENGTH &&
    (event.exception === undefined || exceptionFits(event.exception));
  if (fits) return event;
  const copy: ErrorEvent = { ...event };
  if (message !== undefined) copy.message = cut(message, MAX_MESSAGE_LENGTH);
  if (platform !== undefined) copy.platform = cut(platform, MAX_NAME_LENGTH);
  if (event.exception !== undefined) copy.exception = cappedException(event.exception);
  return copy;
}
