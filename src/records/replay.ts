// Session replays: a replay is the rrweb recording of what a user saw, sent in chunks (segments)
// numbered from 0. Each segment is one item of the `replays` signal; a replay's metadata is the
// merge of its segments' (extensions/query/replays.ts). A segment's events are stored compressed,
// content-addressed (src/storage/segment-blobs.ts), never as a database string; the record keeps
// them as JSON text only on their way to an exporter.

/** rrweb's event types (`EventType` in @rrweb/types): anything else is not an rrweb event. */
export const RRWEB_EVENT_TYPES: Readonly<Record<number, string>> = {
  0: 'DomContentLoaded',
  1: 'Load',
  2: 'FullSnapshot',
  3: 'IncrementalSnapshot',
  4: 'Meta',
  5: 'Custom',
  6: 'Plugin',
};
export const RRWEB_FULL_SNAPSHOT = 2;
export const RRWEB_META = 4;

/** `rpl_` then 1-64 characters of [0-9A-Za-z_-]: what DESIGN.md calls `rpl_<id>`. */
export const REPLAY_ID = /^rpl_[0-9A-Za-z_-]{1,64}$/;

export interface ReplayUser {
  id?: string;
  email?: string;
}

/** A note on something the validation kept but changed or found wanting (like an event's). */
export interface ReplayNote {
  type: string;
  path: string;
  message: string;
}

/** What the receiver decodes from any of POST /v1/replays' body forms, before validation. */
export interface ReplayChunkInput {
  /** The body's fields as sent (JSON forms), or the query's (raw gzip form). */
  fields: Record<string, unknown>;
  /** The events: parsed from `events`, inflated from `data`, or the raw body. */
  events: unknown;
  /** How the events arrived: `events`, `data` (base64 gzip/zlib) or `raw` (a gzip body). */
  form: 'events' | 'data' | 'raw';
}

/** One stored segment: the `replays` signal's record. */
export interface ReplaySegment {
  replay_id: string;
  segment_id: number;
  project_id: string;
  /** ISO 8601: the first and last event's times (the chunk's `timestamp` when it has no events). */
  started_at: string;
  finished_at: string;
  received_at: string;
  event_count: number;
  /** Bytes of events_json: what the segment takes uncompressed. */
  raw_bytes: number;
  /** Whether the segment holds a full snapshot (type 2): playback starts from one. */
  has_full_snapshot: boolean;
  /** Page URLs of the segment: the Meta events' `href`s, then `urls` as sent, each once. */
  urls: string[];
  environment?: string;
  release?: string;
  user?: ReplayUser;
  error_ids: string[];
  trace_ids: string[];
  processing_errors: ReplayNote[];
  /** The segment's events as a JSON array (the uncompressed bytes the blob holds). */
  events_json: string;
  /** Filled by the exporter that stores the blob: sha256 of events_json, and its compressed size. */
  blob?: string;
  stored_bytes?: number;
}

/** The segment's metadata document (what the DocStore keeps): the record without its events. */
export function replaySegmentDocument(segment: ReplaySegment): string {
  const { events_json: _events, ...rest } = segment;
  return JSON.stringify(rest);
}
