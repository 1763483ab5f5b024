import type { ErrorEvent } from './event.js';

/**
 * The event as the API returns it (and as it is stored, so reads need no reshaping):
 * `exception.stacktrace` holds the symbolicated frames, `exception.raw_stacktrace` the frames as
 * received (the same frames until symbolication changes them).
 */
export function toEventDocument(event: ErrorEvent): Record<string, unknown> {
  const { raw_stacktrace, grouping_hash: _hash, issue_transition: _transition, grouping_fallback_issue_id: _fallback, exception, ...rest } = event;
  const frames = exception.stacktrace ?? [];
  return {
    ...rest,
    exception: { ...exception, stacktrace: frames, raw_stacktrace: raw_stacktrace ?? frames },
  };
}

/**
 * toEventDocument as JSON text. When the raw frames are the symbolicated ones, they are
 * serialized once and written twice: the frames are most of an event.
 */
export function eventDocumentJson(event: ErrorEvent): string {
  const { raw_stacktrace, grouping_hash: _hash, issue_transition: _transition, grouping_fallback_issue_id: _fallback, exception, ...rest } = event;
  const frames = exception.stacktrace ?? [];
  if (raw_stacktrace !== undefined && raw_stacktrace !== frames) return JSON.stringify(toEventDocument(event));
  const { stacktrace: _frames, ...exceptionRest } = exception;
  const framesJson = JSON.stringify(frames);
  const exceptionJson = `${openObject(JSON.stringify(exceptionRest))}"stacktrace":${framesJson},"raw_stacktrace":${framesJson}}`;
  return `${openObject(JSON.stringify(rest))}"exception":${exceptionJson}}`;
}

/** `{"a":1}` -> `{"a":1,` and `{}` -> `{`: ready for more members. */
function openObject(json: string): string {
  return json === '{}' ? '{' : `${json.slice(0, -1)},`;
}
