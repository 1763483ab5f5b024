import type { ReceiverFactory } from '../../src/engine/component.js';
import { httpApiConfigSchema, type HttpApiConfig } from './config.js';
import { HttpApiReceiver } from './receiver.js';

export const httpApiFactory: ReceiverFactory<HttpApiConfig> = {
  kind: 'receiver',
  type: 'http_api',
  signals: ['events', 'traces'],
  description: 'The /v1 HTTP API: event and span ingest plus the read endpoints (events, traces, issues, projects)',
  configSchema: httpApiConfigSchema,
  create: (settings) => new HttpApiReceiver(settings),
};
