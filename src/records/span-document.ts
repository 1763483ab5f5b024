import { nanosToMillis } from './nanos.js';
import type { Span } from './span.js';

/**
 * A span as the API returns it (and as it is stored): times in epoch milliseconds, plus the exact
 * nanoseconds as decimal strings (JSON numbers cannot hold them).
 */
export function toSpanDocument(span: Span): Record<string, unknown> {
  const { start_time_unix_nano: start, end_time_unix_nano: end, events, project_id: _project, received_at: _received, ...rest } = span;
  return {
    ...rest,
    start_time: nanosToMillis(start),
    end_time: nanosToMillis(end),
    duration_ms: Number(end - start) / 1e6,
    start_time_unix_nano: start.toString(),
    end_time_unix_nano: end.toString(),
    events: events.map(({ time_unix_nano, ...event }) => ({ ...event, time: nanosToMillis(time_unix_nano), time_unix_nano: time_unix_nano.toString() })),
  };
}
