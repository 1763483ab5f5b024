// A Sentry replay (`replay_event` + `replay_recording` items of one envelope) as the replay
// segment POST /v1/replays takes (DESIGN.md, "Replays"): `{replay_id, segment_id, timestamp,
// events | data, environment, release, user, urls, error_ids, trace_ids}`. The recording's payload
// is a JSON header line (`{"segment_id": n}`) and the rrweb events: a zlib- or gzip-compressed
// JSON array (passed on as base64 `data`), or the JSON array itself (passed on as `events`).
import { isJsonObject, type JsonObject } from './envelope.js';
import { sentryTime } from './time.js';

export type MappedReplay = { ok: true; segment: JsonObject } | { ok: false; reason: string };

const ID = /^[0-9A-Za-z_-]{1,64}$/;

export function mapReplay(replayEvent: JsonObject | undefined, recording: Buffer, receivedAt: number): MappedReplay {
  const newline = recording.indexOf(0x0a);
  if (newline === -1) return { ok: false, reason: 'the replay recording has no header line ({"segment_id": n})' };
  let header: unknown;
  try {
    header = JSON.parse(recording.subarray(0, newline).toString('utf8'));
  } catch {
    return { ok: false, reason: 'the replay recording header is not JSON' };
  }
  const body = recording.subarray(newline + 1);
  const segmentId = isJsonObject(header) ? header.segment_id : undefined;
  const eventSegment = replayEvent?.segment_id;
  const segment = Number.isInteger(segmentId) ? (segmentId as number) : Number.isInteger(eventSegment) ? (eventSegment as number) : undefined;
  if (segment === undefined || segment < 0) return { ok: false, reason: 'the replay recording has no segment_id' };
  const replayId = typeof replayEvent?.replay_id === 'string' ? replayEvent.replay_id.replaceAll('-', '').toLowerCase() : undefined;
  if (!replayId || !ID.test(replayId)) return { ok: false, reason: 'a replay_recording needs the replay_event with its replay_id in the same envelope' };
  const out: JsonObject = { replay_id: `rpl_${replayId}`, segment_id: segment };
  const time = sentryTime(replayEvent?.timestamp);
  out.timestamp = time?.iso ?? new Date(receivedAt).toISOString();
  // zlib starts 0x78, gzip 0x1f 0x8b: compressed; anything else is read as the JSON array.
  if (body[0] === 0x78 || (body[0] === 0x1f && body[1] === 0x8b)) out.data = body.toString('base64');
  else {
    let events: unknown;
    try {
      events = JSON.parse(body.toString('utf8'));
    } catch {
      return { ok: false, reason: 'the replay recording is neither compressed nor a JSON array' };
    }
    if (!Array.isArray(events)) return { ok: false, reason: 'the replay recording is not an array of events' };
    out.events = events;
  }
  if (replayEvent) {
    for (const field of ['environment', 'release', 'dist'] as const) if (typeof replayEvent[field] === 'string') out[field] = replayEvent[field];
    if (isJsonObject(replayEvent.user)) out.user = replayEvent.user;
    for (const field of ['urls', 'error_ids', 'trace_ids'] as const) {
      const list = replayEvent[field];
      if (Array.isArray(list)) {
        const strings = list.filter((v): v is string => typeof v === 'string');
        out[field] = field === 'error_ids' ? strings.map(eventUuid) : strings;
      }
    }
    // replay_start_timestamp is not passed on: a segment's start is its first rrweb event's time
    // (the validation processor's), and an unknown field would be noted on every segment.
  }
  return { ok: true, segment: out };
}

/** Epoch seconds between 2000 and 2200: what the replay SDK puts in some events' `timestamp`. */
const MIN_S = 946_684_800;
const MAX_S = 7_258_118_400;

/**
 * The rrweb events with every `timestamp` in epoch milliseconds. `@sentry/browser`'s replay
 * integration stamps its own custom events (type 5: `performanceSpan`, e.g. navigation and
 * resource timings) in epoch *seconds*, the rest (rrweb's, and its breadcrumbs) in milliseconds;
 * players and the replays store read milliseconds, so those are converted here (other fields and
 * the payloads' own `startTimestamp`/`endTimestamp`, in seconds by Sentry's convention, are kept).
 */
export function rrwebMilliseconds(events: unknown): unknown {
  if (!Array.isArray(events)) return events;
  return events.map((event: unknown) => {
    if (!isJsonObject(event)) return event;
    const t = event.timestamp;
    return typeof t === 'number' && t >= MIN_S && t <= MAX_S ? { ...event, timestamp: Math.round(t * 1000) } : event;
  });
}

/** Event ids as the event store keeps them (dashed UUIDs), so error bookmarks find their events. */
function eventUuid(id: string): string {
  const hex = id.replaceAll('-', '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : id;
}
