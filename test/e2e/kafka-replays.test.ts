// Replays over Kafka (issue #15 with issue #14): a segment posted to an ingest node (http_api ->
// validation -> kafka) is a faultline_json record on the replays topic; the worker (kafka ->
// parquet) stores it in the shared lake, and the query node reads the replay and its segments.
// A segment posted twice (as a redelivery would bring it) stays one segment.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startMockBroker, type MockBroker } from '../support/kafka.js';
import { startRoles, until } from '../support/kafka-roles.js';
import { postChunk, rrwebEvents } from '../support/replays.js';
import type { TestService } from '../support/service.js';

describe('replays through an ingest node, Kafka and a worker', () => {
  let broker: MockBroker | undefined;
  const nodes: TestService[] = [];
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await broker?.stop();
  });

  it('a segment posted to the ingest node is readable on the query node, once', { timeout: 90_000 }, async () => {
    broker = await startMockBroker();
    const { ingest, query } = await startRoles(broker, nodes);
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
  });
});
