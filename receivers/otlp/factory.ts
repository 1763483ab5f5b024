import type { ReceiverFactory } from '../../src/engine/component.js';
import { otlpConfigSchema, type OtlpConfig } from './config.js';
import { OtlpReceiver } from './receiver.js';

export const otlpFactory: ReceiverFactory<OtlpConfig> = {
  kind: 'receiver',
  type: 'otlp',
  // Exceptions recorded on spans become error events in the `exceptions` connector, not here.
  signals: ['traces'],
  stability: { traces: 'beta' },
  metrics: ['faultline_receiver_accepted_items_total', 'faultline_receiver_refused_items_total', 'faultline_http_request_duration_seconds'],
  extensions: ['catalog'],
  description: 'OTLP/HTTP (protobuf and JSON) on its own port: spans',
  configSchema: otlpConfigSchema,
  defaults: {
    host: { env: 'FAULTLINE_OTLP_HOST', deprecatedServiceKey: 'otlp.host' },
    port: { env: 'FAULTLINE_OTLP_PORT', deprecatedServiceKey: 'otlp.port' },
  },
  listensOn: (config) => ({ host: config.host, port: config.port }),
  create: (settings) => new OtlpReceiver(settings),
};
