// A third worker joins a group of two while spans flow (issue #15): the group rebalances, the
// newcomer takes some partitions over and consumes them, and every span is read exactly once.
// Spans are written the OpenTelemetry Collector's way (otlp_proto) to explicit partitions, so
// that all four partitions of the topic carry data (faultline's own records are keyed by project).
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import kafkajs from 'kafkajs';
import { encodeTracesData } from '../../exporters/kafka/otlp-proto.js';
import { startMockBroker, seededDataDirs, type MockBroker } from '../support/kafka.js';
import { collectorSpans, roleEnv, roleYaml, spanCountBy } from '../support/kafka-roles.js';
import { startService, tempDir, type TestService } from '../support/service.js';

const PARTITIONS = 4;
const SPANS_PER_TRACE = 50;

async function accepted(worker: TestService): Promise<number> {
  const text = await (await worker.api('/metrics', { key: null })).text();
  return Number(/faultline_receiver_accepted_items_total\{receiver="kafka",signal="traces"\} (\d+)/.exec(text)?.[1] ?? 0);
}

describe('a third worker joins the group', () => {
  let broker: MockBroker | undefined;
  const services: TestService[] = [];

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await broker?.stop();
  });

  it('rebalances: the newcomer consumes partitions and every span is read once', { timeout: 60_000 }, async () => {
    broker = await startMockBroker();
    const lake = tempDir('faultline-shared-lake-');
    const seeded = await seededDataDirs(4);
    const keys = { live: seeded.liveKey, test: seeded.testKey };
    const worker = (i: number) =>
      startService({ yaml: roleYaml('worker', { key: seeded.liveKey }), dataDir: seeded.dirs[i], keys, env: roleEnv(broker!.brokers, lake, `w${i + 1}`) });
    services.push(await worker(0), await worker(1));
    const query = await startService({ yaml: roleYaml('query'), dataDir: seeded.dirs[3], keys, env: roleEnv(broker.brokers, lake) });
    services.push(query);

    const kafka = new kafkajs.Kafka({ brokers: [broker.brokers], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const traces: string[] = [];
    const produce = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const trace = randomBytes(16).toString('hex');
        traces.push(trace);
        await producer.send({
          topic: 'faultline.traces',
          messages: [{ value: encodeTracesData(collectorSpans(trace, SPANS_PER_TRACE, 'rebalanced')), partition: traces.length % PARTITIONS }],
        });
      }
    };
    await produce(PARTITIONS * 2);
    const third = await worker(2);
    services.push(third);
    // Keep spans coming while the group rebalances, until the newcomer has taken some.
    for (let round = 0; round < 100 && (await accepted(third)) === 0; round++) {
      await produce(PARTITIONS);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(await accepted(third)).toBeGreaterThan(0);
    await produce(PARTITIONS * 2);
    await producer.disconnect();

    const deadline = Date.now() + 30_000;
    for (const trace of traces) expect(await spanCountBy((path) => query.api(path), trace, SPANS_PER_TRACE, deadline)).toBe(SPANS_PER_TRACE);
    const total = (await Promise.all(services.slice(0, 2).concat(third).map(accepted))).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(traces.length * SPANS_PER_TRACE); // redeliveries may add, never lose
  });
});
