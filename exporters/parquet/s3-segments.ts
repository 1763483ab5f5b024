// Replay segments' events with the lake on S3: each segment's gzip blob is an object of the lake's
// bucket, so no node needs a directory another node writes. The writer PUTs it before it stages
// the segment's row (an acknowledged row never lacks its events); readers GET it, a query node
// through its bounded local cache. Keys are dated like the segment's Parquet partition, so
// retention deletes a day's blobs with its rows (RemoteLake.expireBefore), and end in the digest of
// the events' JSON, so an object never changes once written (a redelivered segment PUTs the same
// bytes again; a re-post with other events is another object, which no kept row names):
//   replay-segments/project_id=<project>/date=<YYYY-MM-DD>/<replay_id>/<segment_id>-<sha>.json.gz
import type { Item } from '../../src/engine/item.js';
import type { Row } from '../../src/engine/read-source.js';
import type { ReplaySegment } from '../../src/records/replay.js';
import { gzipSegment, type StoredBlob } from '../../src/storage/segment-blobs.js';
import type { LakeStore } from './lake-store.js';

/** Where the blobs are in the bucket (under the lake's prefix). */
export const SEGMENTS_ROOT = 'replay-segments';

/** What names a segment's blob: its row's (or record's) project, start, replay, number and digest. */
export interface SegmentAddress {
  projectId: string;
  startedAt: Date | string;
  replayId: string;
  segmentId: number;
  sha: string;
}

export function segmentKey(at: SegmentAddress): string {
  const day = new Date(at.startedAt).toISOString().slice(0, 10);
  return `${SEGMENTS_ROOT}/project_id=${at.projectId}/date=${day}/${at.replayId}/${at.segmentId}-${at.sha}.json.gz`;
}

/** Reads a blob by key: a query node's cache, or the bucket directly. */
export type BlobReader = (key: string) => Promise<Buffer | undefined>;

export class S3SegmentBlobs {
  constructor(
    private readonly store: LakeStore,
    private readonly read: BlobReader = (key) => store.get(key),
  ) {}

  /** Compresses the events and PUTs them; resolves once the object is in the bucket. */
  async put({ data, tenant }: Item<ReplaySegment>, sha: string): Promise<StoredBlob> {
    const gz = await gzipSegment(data.events_json);
    const key = segmentKey({ projectId: tenant.projectId, startedAt: data.started_at, replayId: data.replay_id, segmentId: data.segment_id, sha });
    await this.store.putBytes(key, gz);
    return { sha, bytes: gz.length };
  }

  /** A stored row's events (gzip), or undefined when its object is gone. */
  gzipped(row: Row): Promise<Buffer | undefined> {
    const startedAt = row.started_at;
    if (!(startedAt instanceof Date) && typeof startedAt !== 'string') return Promise.resolve(undefined);
    return this.read(
      segmentKey({ projectId: String(row.project_id), startedAt, replayId: String(row.replay_id), segmentId: Number(row.segment_id), sha: String(row.blob) }),
    );
  }
}
