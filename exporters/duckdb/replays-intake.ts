// Replay segments in the duckdb exporter's intake (intake.ts): the metadata document keyed
// (dataset, project, replay id, segment id) in the DocStore, so the same segment posted again
// stores nothing twice; rows added to DuckDB's `replay_segments` behind. The events are not in
// either: the exporter stores them as a compressed blob first (src/storage/segment-blobs.ts), and
// the document and row carry its address.
import { listValue, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import type { Tenant } from '../../src/engine/item.js';
import { replaySegmentDocument, type ReplaySegment } from '../../src/records/replay.js';
import { appendReplayColumns } from '../../src/records/replay-row.js';
import type { DocKey } from './docs.js';
import { appendRows } from './kept-appenders.js';
import type { Accepted, IntakeKind } from './intake.js';

export function replayKey(tenant: Pick<Tenant, 'dataset' | 'projectId'>, replayId: string, segmentId: number): DocKey {
  return [tenant.dataset, tenant.projectId, replayId, segmentId];
}

export const replayIntake: IntakeKind<ReplaySegment> = {
  kind: 'replays',
  key: (tenant, segment) => replayKey(tenant, segment.replay_id, segment.segment_id),
  check(segment) {
    if (segment.blob === undefined) throw new Error('a replay segment reached the intake before its blob was stored');
  },
  document: replaySegmentDocument,
  pending: () => null,
  fromDocument: (doc) => ({ ...(JSON.parse(doc) as Omit<ReplaySegment, 'events_json'>), events_json: '' }),
  slim: (segment) => ({ ...segment, events_json: '' }),
  // A copy of a stored segment is acknowledged as stored: nothing to learn from the original.
  index: indexReplays,
};

async function indexReplays(connection: DuckDBConnection, segments: Accepted<ReplaySegment>[], recheck: boolean): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  let fresh = segments;
  if (recheck) {
    const key = (d: unknown, p: unknown, r: unknown, s: unknown) => `${d}\0${p}\0${r}\0${s}`;
    const stored = await connection.runAndReadAll(
      'SELECT dataset, project_id, replay_id, segment_id FROM replay_segments WHERE replay_id IN (SELECT unnest($replays))',
      { replays: listValue([...new Set(segments.map(({ data }) => data.replay_id))]) },
    );
    const seen = new Set(stored.getRows().map(([d, p, r, s]) => key(d, p, r, s)));
    fresh = segments.filter(({ tenant, data }) => !seen.has(key(tenant.dataset, tenant.projectId, data.replay_id, data.segment_id)));
  }
  if (fresh.length) {
    await appendRows(connection, 'replay_segments', fresh, appendReplayRow);
  }
  await connection.run('COMMIT');
}

function appendReplayRow(appender: DuckDBAppender, segment: Accepted<ReplaySegment>): void {
  appendReplayColumns(appender, segment, '');
}
