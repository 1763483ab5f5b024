import type { ReceiverFactory } from '../../src/engine/component.js';
import { kafkaReceiverConfigSchema, type KafkaReceiverConfig } from './config.js';
import { KafkaReceiver } from './receiver.js';

export const kafkaReceiverFactory: ReceiverFactory<KafkaReceiverConfig> = {
  kind: 'receiver',
  type: 'kafka',
  // The traces topic may also hold spans an OpenTelemetry Collector wrote (otlp_proto), never scrubbed.
  relays: ['events', 'replays'],
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'alpha', traces: 'alpha', replays: 'alpha' },
  // faultline_json carries records the ingest node validated; otlp_proto spans are validated here.
  provides: { events: ['validated'], traces: ['validated'], replays: ['validated'] },
  metrics: ['faultline_receiver_accepted_items_total', 'faultline_receiver_refused_items_total', 'faultline_kafka_receiver_waits_total'],
  extensions: ['catalog'],
  description: "A Kafka consumer group over its pipelines' topics (faultline_json, otlp_proto): offsets committed once every exporter has",
  configSchema: kafkaReceiverConfigSchema,
  create: (settings) => new KafkaReceiver(settings),
};
