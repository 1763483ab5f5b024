import type { ReceiverFactory } from '../../src/engine/component.js';
import { otlpConfigSchema, type OtlpConfig } from './config.js';
import { OtlpReceiver } from './receiver.js';

export const otlpFactory: ReceiverFactory<OtlpConfig> = {
  kind: 'receiver',
  type: 'otlp',
  signals: ['traces', 'events'],
  description: 'OTLP/HTTP (protobuf and JSON) on its own port: spans, and their exception events as error events',
  configSchema: otlpConfigSchema,
  create: (settings) => new OtlpReceiver(settings),
};
