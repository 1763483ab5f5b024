// The kafka receiver against the librdkafka mock broker, with a stand-in consumer: nothing is
// handed in while the pipeline's budget is full, and an offset is committed only once consume()
// resolved (every exporter committed). And the record encodings round-trip.
import { randomBytes, randomUUID } from 'node:crypto';
import kafkajs from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTracesData } from '../../exporters/kafka/otlp-proto.js';
import { KafkaReceiver } from '../../receivers/kafka/receiver.js';
import { kafkaReceiverConfigSchema } from '../../receivers/kafka/config.js';
import { decodeTraceRequestProtobuf } from '../../src/otlp/decode/protobuf.js';
import type { Consumer } from '../../src/engine/component.js';
import { OverloadedError } from '../../src/engine/errors.js';
import { settingsHost } from '../support/test-host.js';
import type { Item, Tenant } from '../../src/engine/item.js';
import { decodeRecord, encodeRecord, RecordDecodeError } from '../../src/kafka/record.js';
import type { Span } from '../../src/records/span.js';
import { Metrics } from '../../src/telemetry/metrics.js';
import { startMockBroker, type MockBroker } from '../support/kafka.js';

const tenant: Tenant = { orgId: 'org1', projectId: 'proj1', dataset: 'live' };

function span(overrides: Partial<Span> = {}): Span {
  return {
    trace_id: randomBytes(16).toString('hex'),
    span_id: randomBytes(8).toString('hex'),
    parent_span_id: '',
    name: 'GET /cart',
    service_name: 'web',
    start_time_unix_nano: 1_790_000_000_123_456_789n,
    end_time_unix_nano: 1_790_000_000_223_456_789n,
    status: 'error',
    status_message: 'boom',
    kind: 'server',
    attributes: { 'http.status_code': 500, ok: false, ratio: 0.5, tags: ['a', 'b'], nested: { k: 'v' } },
    resource_attributes: { 'service.name': 'web' },
    events: [{ name: 'exception', time_unix_nano: 1_790_000_000_200_000_001n, attributes: { 'exception.type': 'Error' } }],
    links: [],
    project_id: 'proj1',
    received_at: '2026-09-21T00:00:00.000Z',
    ...overrides,
  };
}

describe('record encodings', () => {
  it('faultline_json round-trips an event and a span, 64-bit times exact', () => {
    const event = { id: randomUUID(), timestamp: '2026-09-21T00:00:00.000Z', exception: { type: 'E', value: 'v' }, project_id: 'proj1' };
    const encoded = encodeRecord('events', { data: event, tenant, receivedAt: 1234, size: 1 });
    expect(encoded.key).toBe('proj1');
    expect(encoded.headers).toEqual({ 'faultline-schema': '1', 'faultline-signal': 'events' });
    expect(decodeRecord(encoded.value)).toEqual({ signal: 'events', tenant, receivedAt: 1234, record: event });
    const s = span();
    const decoded = decodeRecord(encodeRecord('traces', { data: s, tenant, receivedAt: 5, size: 1 }).value);
    expect(decoded.record).toEqual(s);
  });

  it('faultline_json refuses what is not schema 1', () => {
    for (const value of ['', 'nope', '[]', '{"schema":2}', '{"schema":1,"signal":"logs"}', '{"schema":1,"signal":"events","tenant":{}}'])
      expect(() => decodeRecord(Buffer.from(value))).toThrow(RecordDecodeError);
  });

  it('otlp_proto: what the exporter writes, the OTLP decoder reads back', () => {
    const s = span();
    const request = decodeTraceRequestProtobuf(encodeTracesData([s, span({ trace_id: s.trace_id, parent_span_id: s.span_id })]));
    expect(request.resourceSpans).toHaveLength(1);
    expect(request.resourceSpans[0].resource).toEqual({ 'service.name': 'web' });
    const [first, second] = request.resourceSpans[0].spans;
    expect(first).toMatchObject({ trace_id: s.trace_id, span_id: s.span_id, name: 'GET /cart', kind: 'server', status: 'error', status_message: 'boom' });
    expect(first.start_time).toBe(s.start_time_unix_nano);
    expect(first.attributes).toEqual(s.attributes);
    expect(second.parent_span_id).toBe(s.span_id);
  });
});

describe('kafka receiver', () => {
  let broker: MockBroker;
  beforeAll(async () => {
    broker = await startMockBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it('holds the partition while the budget is full and commits only after consume resolved', async () => {
    const topic = `events-${randomBytes(4).toString('hex')}`;
    const groupId = `group-${randomBytes(4).toString('hex')}`;
    const kafka = new kafkajs.Kafka({ brokers: [broker.brokers], logLevel: kafkajs.logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const ids = Array.from({ length: 20 }, () => randomUUID());
    await producer.send({
      topic,
      messages: ids.map((id) => {
        const record = encodeRecord('events', { data: { id }, tenant, receivedAt: 1, size: 1 });
        return { key: record.key, value: record.value, headers: record.headers };
      }),
    });
    await producer.disconnect();

    let full = true;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const consumed: string[] = [];
    let consumeCalls = 0;
    const consumer: Consumer = {
      assertRoom: () => {
        if (full) throw new OverloadedError('events');
      },
      consume: async (items: Item[]) => {
        consumeCalls++;
        await gate;
        consumed.push(...items.map((item) => (item.data as { id: string }).id));
      },
    };
    const metrics = new Metrics();
    const host = settingsHost({ retention: { traces_days: 36500 } }, { metrics });
    const config = kafkaReceiverConfigSchema.parse({
      brokers: [broker.brokers],
      group_id: groupId,
      topics: { events: topic },
      session_timeout_ms: 3000,
      rebalance_timeout_ms: 3000,
      heartbeat_interval_ms: 300,
      retry_backoff_ms: 50,
    });
    const receiver = new KafkaReceiver({ id: { type: 'kafka', text: 'kafka' }, config, host, consumers: { events: consumer } });
    const admin = kafka.admin();
    await admin.connect();
    const committed = async () => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
    };
    try {
      await receiver.start();
      const waits = async () => (await metrics.kafkaReceiverWaits.get()).values.find((v) => v.labels.reason === 'overloaded')?.value ?? 0;
      for (let i = 0; i < 100 && (await waits()) < 3; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await waits()).toBeGreaterThanOrEqual(3);
      expect(consumeCalls).toBe(0);
      expect(await committed()).toBe(0);

      full = false;
      for (let i = 0; i < 100 && consumeCalls === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(consumeCalls).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      expect(await committed()).toBe(0); // consume() has not resolved: nothing committed

      open();
      for (let i = 0; i < 100 && (await committed()) < ids.length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await committed()).toBe(ids.length);
      expect(consumed.sort()).toEqual([...ids].sort());
    } finally {
      await receiver.shutdown();
      await admin.disconnect();
    }
  });
});
