import type { ErrorEvent } from './event.js';

/**
 * The event as the API returns it (and as it is stored, so reads need no reshaping):
 * `exception.stacktrace` holds the symbolicated frames, `exception.raw_stacktrace` the frames as
 * received (the same frames until symbolication changes them).
 */
export function toEventDocument(event: ErrorEvent): Record<string, unknown> {
  const { raw_stacktrace, grouping_hash: _hash, exception, ...rest } = event;
  const frames = exception.stacktrace ?? [];
  return {
    ...rest,
    exception: { ...exception, stacktrace: frames, raw_stacktrace: raw_stacktrace ?? frames },
  };
}
