// Replays over Kafka (issue #15 with issue #14): a segment posted to an ingest node (http_api ->
// validation -> kafka) is a faultline_json record on the replays topic; the worker (kafka ->
// parquet) stores it in the shared lake, and the query node reads the replay and its segments.
// A segment posted twice (as a redelivery would bring it) stays one segment. Run twice: on a lake
// directory the roles share, and with the lake on an S3 bucket (s3rver on loopback) and no
// directory shared between the nodes: the worker PUTs the segments' blobs to the bucket and the
// query node reads them from there.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parquetConfigSchema } from '../../exporters/parquet/config.js';
import { S3LakeStore } from '../../exporters/parquet/s3-store.js';
import { startMockBroker, type MockBroker } from '../support/kafka.js';
import { startRoles, until } from '../support/kafka-roles.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import { startS3, type LoopbackS3 } from '../support/s3.js';
import type { TestService } from '../support/service.js';

describe('replays through an ingest node, Kafka and a worker', () => {
  let broker: MockBroker | undefined;
  let s3: LoopbackS3 | undefined;
  const nodes: TestService[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop();
    await broker?.stop();
    broker = undefined;
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it('a segment posted to the ingest node is readable on the query node, once', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, query } = await startRoles(broker, nodes);
    await segmentsThroughTheRoles(ingest, query);
  });

  it('with the lake on S3 and no directory shared between the nodes, the segments go through the bucket', { timeout: 90_000 }, async () => {
    s3 = await startS3();
    broker = await startMockBroker();
    const lake = { ...s3.lakeConfig('kafka-replays'), refresh_ms: 300 };
    const { ingest, query, lakeDirs } = await startRoles(broker, nodes, { s3: lake });
    const [, workerLake, queryLake] = lakeDirs;
    const replayId = await segmentsThroughTheRoles(ingest, query);
    const store = new S3LakeStore(parquetConfigSchema.parse({ s3: lake }).s3!);
    try {
      const blobs = (await store.list('replay-segments/')).map((object) => object.key).filter((key) => key.includes(`/${replayId}/`));
      expect(blobs.map((key) => key.replace(/-[0-9a-f]{64}\.json\.gz$/, '')).sort()).toEqual(
        [0, 1].map((n) => expect.stringMatching(new RegExp(`^replay-segments/project_id=[^/]+/date=\\d{4}-\\d{2}-\\d{2}/${replayId}/${n}$`))),
      );
    } finally {
      store.close();
    }
    // The worker kept no blob on disk; the query node read them into its cache, from the bucket.
    expect(existsSync(join(workerLake, 'replay-segments'))).toBe(false);
    expect(readdirSync(queryLake)).toEqual(['.s3-cache']);
    const cached = readdirSync(join(queryLake, '.s3-cache'), { recursive: true }).map(String);
    expect(cached.filter((path) => path.includes(replayId) && path.endsWith('.json.gz'))).toHaveLength(2);
  });

  /** Posts a replay's two segments (one twice) to the ingest node and reads them on the query node; returns the replay's id. */
  async function segmentsThroughTheRoles(ingest: TestService, query: TestService): Promise<string> {
    const replayId = `rpl_${randomUUID().replaceAll('-', '')}`;
    const t0 = Date.now() - 60_000;
    const first = rrwebEvents(t0, 4, { text: 'typed over Kafka' });
    const second = rrwebEvents(t0 + 5_000, 3, { fullSnapshot: false });

    const posted = await postChunk(
      ingest,
      'events',
      { replay_id: replayId, segment_id: 0, environment: 'prod', release: 'shop@1', user: { id: 'u-7' } },
      first,
    );
    expect(posted.status).toBe(202);
    expect(await posted.json()).toEqual({ replay_id: replayId, segment_id: 0, status: 'stored' });
    expect((await postChunk(ingest, 'raw', { replay_id: replayId, segment_id: 1 }, second)).status).toBe(202);
    expect((await postChunk(ingest, 'events', { replay_id: replayId, segment_id: 1 }, second)).status).toBe(202); // again

    const replay = await until(
      'the replay on the query node',
      async () => {
        const res = await query.api(`/v1/replays/${replayId}`);
        if (res.status !== 200) return undefined;
        const body = (await res.json()) as { segment_count: number };
        return body.segment_count === 2 ? body : undefined;
      },
      40_000,
    );
    expect(replay).toMatchObject({
      id: replayId,
      segment_count: 2,
      event_count: first.length + second.length,
      environment: 'prod',
      release: 'shop@1',
      user: { id: 'u-7' },
    });
    expect(await (await query.api(`/v1/replays/${replayId}/segments/0`)).json()).toEqual(first);
    expect(await (await query.api(`/v1/replays/${replayId}/segments/1`)).json()).toEqual(second);
    const list = (await (await query.api('/v1/replays?project_id=default')).json()) as { data: Array<{ id: string }> };
    expect(list.data.filter((r) => r.id === replayId)).toHaveLength(1);
    return replayId;
  }
});
