import type { ReceiverFactory } from '../../src/engine/component.js';
import { otlpConfigSchema, type OtlpConfig } from './config.js';
import { OtlpReceiver } from './receiver.js';

export const otlpFactory: ReceiverFactory<OtlpConfig> = {
  kind: 'receiver',
  type: 'otlp',
  signals: ['traces', 'events'],
  stability: { traces: 'beta', events: 'beta' },
  metrics: ['faultline_receiver_accepted_items_total', 'faultline_receiver_refused_items_total', 'faultline_http_request_duration_seconds'],
  description: 'OTLP/HTTP (protobuf and JSON) on its own port: spans, and their exception events as error events',
  configSchema: otlpConfigSchema,
  create: (settings) => new OtlpReceiver(settings),
};
