// What the replay page reads, behind one small interface: the shapes of GET /v1/replays/{id} and
// GET /v1/replays/{id}/segments/{n} (DESIGN.md, "Replays"). The replays store lives on another
// branch; whoever wires it passes a ReplaySource to mountWebApp (service.ts), and until then the
// page says there is no replay store.
import type { Dataset } from '../engine/item.js';

export interface ReplayMeta {
  id: string;
  project_id: string;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  segment_count: number;
  urls: string[];
  error_bookmarks: Array<{ event_id: string; timestamp: string; offset_ms: number; title: string }>;
  trace_ids: string[];
  streams: Array<{ segment_id: number; url: string; size_bytes: number }>;
}

export interface ReplaySource {
  /** The replay's metadata, if it exists in one of `projectIds` of the dataset. */
  get(dataset: Dataset, projectIds: string[], id: string): Promise<ReplayMeta | undefined>;
  /** One segment's rrweb events, in order. */
  segment(dataset: Dataset, projectIds: string[], id: string, segmentId: number): Promise<unknown[] | undefined>;
}
