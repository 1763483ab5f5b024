import type { ExporterFactory } from '../../src/engine/component.js';
import { kafkaExporterConfigSchema, type KafkaExporterConfig } from './config.js';
import { KafkaExporter } from './exporter.js';

export const kafkaExporterFactory: ExporterFactory<KafkaExporterConfig> = {
  kind: 'exporter',
  type: 'kafka',
  persists: true,
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'alpha', traces: 'alpha', replays: 'alpha' },
  // It writes the validated record, so that workers need not validate again.
  requires: { events: ['validated'], traces: ['validated'], replays: ['validated'] },
  metrics: ['faultline_exporter_sent_items_total', 'faultline_exporter_failed_items_total'],
  description: 'Produces items to Kafka, a topic per signal, keyed by project: the ack waits for the brokers (acks -1)',
  configSchema: kafkaExporterConfigSchema,
  create: (settings) => new KafkaExporter(settings),
};
