// Issue #15 on a real Kafka-protocol broker (the librdkafka mock, test/support/kafka.ts), roles in
// process: ingest -> Kafka -> worker -> lake -> query over HTTP; a broker outage answers 503 +
// Retry-After and nothing acknowledged is lost; otlp_proto spans written the Collector's way are read.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { encodeTracesData } from '../../exporters/kafka/otlp-proto.js';
import { startMockBroker, seededDataDirs, type MockBroker } from '../support/kafka.js';
import { collectorSpans, roleEnv, roleYaml, until } from '../support/kafka-roles.js';
import { fullEvent, startService, tempDir, type TestService } from '../support/service.js';

/** Every event id the query node lists (all pages). */
async function listedEventIds(query: TestService, project: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const res = await query.api(`/v1/events?project_id=${project}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (res.status !== 200) throw new Error(`GET /v1/events: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { data: Array<{ id: string }>; next_cursor?: string | null };
    ids.push(...body.data.map((e) => e.id));
    cursor = body.next_cursor ?? undefined;
    if (!cursor) break;
  }
  return ids;
}

function spansOf(trace: string, count: number): Array<Record<string, unknown>> {
  const start = Date.now() - 60_000;
  return Array.from({ length: count }, (_, i) => ({
    trace_id: trace,
    span_id: randomBytes(8).toString('hex'),
    name: `op ${i}`,
    service_name: 'checkout',
    start_time: start + i,
    end_time: start + i + 5,
    attributes: { i, big: 9007199254740993n.toString() },
  }));
}

describe('ingest -> kafka -> worker -> lake -> query', () => {
  let broker: MockBroker;
  let ingest: TestService;
  let worker: TestService;
  let query: TestService;
  const lake = tempDir('faultline-shared-lake-');
  let projectId = '';

  beforeAll(async () => {
    broker = await startMockBroker();
    const seeded = await seededDataDirs(3);
    const keys = { live: seeded.liveKey, test: seeded.testKey };
    projectId = seeded.projectId;
    const env = roleEnv(broker.brokers, lake);
    ingest = await startService({ yaml: roleYaml('ingest'), dataDir: seeded.dirs[0], keys, env });
    worker = await startService({ yaml: roleYaml('worker', { key: seeded.liveKey }), dataDir: seeded.dirs[1], keys, env });
    query = await startService({ yaml: roleYaml('query'), dataDir: seeded.dirs[2], keys, env });
  });

  afterAll(async () => {
    await Promise.all([ingest?.stop(), worker?.stop(), query?.stop()]);
    await broker?.stop();
  });

  it('takes events and spans in through the ingest role and serves them, once each, from the lake through the query role', async () => {
    const eventIds: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, async () => {
          const id = randomUUID();
          eventIds.push(id);
          const res = await ingest.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date().toISOString() })) });
          return { status: res.status, body: (await res.json()) as { id: string; permalink: string } };
        }),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(202);
        expect(answer.body.permalink).toBe(`http://faultline.test/events/${answer.body.id}`);
      }
    }
    const trace = randomBytes(16).toString('hex');
    const traced = await ingest.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: spansOf(trace, 200) }) });
    expect(traced.status).toBe(202);
    expect(((await traced.json()) as { accepted: number }).accepted).toBe(200);

    const listed = await until('every event in the lake', async () => {
      const ids = await listedEventIds(query, projectId);
      return ids.length >= eventIds.length ? ids : undefined;
    });
    expect(listed.length).toBe(eventIds.length);
    expect(new Set(listed)).toEqual(new Set(eventIds));
    const one = (await (await query.api(`/v1/events/${eventIds[0]}`)).json()) as { issue_id: string; exception: { type: string } };
    expect(one.issue_id).toMatch(/\S/);
    const issues = (await (await query.api(`/v1/issues?project_id=${projectId}`)).json()) as { data: Array<{ id: string; count: number }> };
    expect(issues.data.find((issue) => issue.id === one.issue_id)?.count).toBe(eventIds.length);

    const spans = await until('the trace in the lake', async () => {
      const res = await query.api(`/v1/traces/${trace}`);
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as { span_count: number; spans: Array<{ attributes: Record<string, unknown> }> };
      return body.span_count === 200 ? body : undefined;
    });
    expect(spans.spans.every((s) => typeof s.attributes.i === 'number')).toBe(true);
  });

  it('answers 503 + Retry-After while the broker is down, and loses nothing it acknowledged', async () => {
    const acked: string[] = [];
    const post = async () => {
      const id = randomUUID();
      const res = await ingest.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date().toISOString() })) });
      if (res.status === 202) acked.push(id);
      return res;
    };
    expect((await post()).status).toBe(202);
    broker.pause();
    let refused: Response | undefined;
    try {
      for (let i = 0; i < 20 && !refused; i++) {
        const res = await post();
        if (res.status === 503) refused = res;
      }
    } finally {
      broker.resume();
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    const recovered = await until('a 202 after the broker is back', async () => ((await post()).status === 202 ? true : undefined), 20_000);
    expect(recovered).toBe(true);
    for (let i = 0; i < 20; i++) expect((await post()).status).toBe(202);
    await until('every acknowledged event in the lake', async () => {
      const ids = new Set(await listedEventIds(query, projectId));
      return acked.every((id) => ids.has(id)) ? true : undefined;
    });
  });

  it('reads a spans topic the OpenTelemetry Collector wrote (otlp_proto, no faultline headers) with its configured key', async () => {
    const trace = randomBytes(16).toString('hex');
    const spans = collectorSpans(trace, 3, 'collected', (i) => ({ n: i }));
    const kafka = new kafkajs.Kafka({ brokers: [broker.brokers], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({ topic: 'faultline.traces', messages: [{ value: encodeTracesData(spans) }] });
    await producer.disconnect();
    const body = await until(
      'the collector spans',
      async () => {
        const res = await query.api(`/v1/traces/${trace}`);
        return res.status === 200 ? ((await res.json()) as { span_count: number; services: string[] }) : undefined;
      },
      20_000,
    );
    expect(body.span_count).toBe(3);
    expect(body.services).toEqual(['collected']);
  });
});
