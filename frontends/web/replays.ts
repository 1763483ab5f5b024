// What the replay page reads, behind one small interface: the shapes of GET /v1/replays/{id} and
// GET /v1/replays/{id}/segments/{n} (DESIGN.md, "Replays"), served by the replays store.
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { Dataset } from '../../src/engine/item.js';
import type { Replay, ReplayStore } from '../../extensions/query/index.js';

const gunzipAsync = promisify(gunzip);

/** The replay's fields the page shows: the store's replay, read as it is. */
export type ReplayMeta = Pick<
  Replay,
  'id' | 'project_id' | 'started_at' | 'finished_at' | 'duration_ms' | 'segment_count' | 'urls' | 'error_bookmarks' | 'trace_ids' | 'streams'
>;

export interface ReplaySource {
  /** The replay's metadata, if it exists in one of `projectIds` of the dataset. */
  get(dataset: Dataset, projectIds: string[], id: string): Promise<ReplayMeta | undefined>;
  /** One segment's rrweb events, in order. */
  segment(dataset: Dataset, projectIds: string[], id: string, segmentId: number): Promise<unknown[] | undefined>;
}

/** The replays store as the replay page reads it: segments come stored gzip-compressed. */
export function replaySourceOf(store: ReplayStore): ReplaySource {
  return {
    get: (dataset, projectIds, id) => store.get(dataset, projectIds, id),
    segment: async (dataset, projectIds, id, segmentId) => {
      const blob = await store.segment(dataset, projectIds, id, segmentId);
      if (blob === undefined) return undefined;
      const events: unknown = JSON.parse((await gunzipAsync(blob)).toString('utf8'));
      return Array.isArray(events) ? events : undefined;
    },
  };
}
