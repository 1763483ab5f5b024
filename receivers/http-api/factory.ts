import type { ReceiverFactory } from '../../src/engine/component.js';
import { httpApiConfigSchema, type HttpApiConfig } from './config.js';
import { HttpApiReceiver } from './receiver.js';

export const httpApiFactory: ReceiverFactory<HttpApiConfig> = {
  kind: 'receiver',
  type: 'http_api',
  signals: ['events', 'traces', 'replays'],
  stability: { events: 'beta', traces: 'beta', replays: 'alpha' },
  // It mounts its routes on the service's one HTTP host.
  singleton: true,
  metrics: ['faultline_receiver_accepted_items_total', 'faultline_receiver_refused_items_total', 'faultline_http_request_duration_seconds'],
  extensions: ['catalog', 'sentry_ingest'],
  description: 'The /v1 ingest API: POST /v1/events, POST /v1/traces and POST /v1/replays on the service HTTP port',
  // service.limits.event_body_bytes was this receiver's key until it moved here.
  defaults: { max_event_bytes: { deprecatedServiceKey: 'limits.event_body_bytes' } },
  configSchema: httpApiConfigSchema,
  create: (settings) => new HttpApiReceiver(settings),
};
