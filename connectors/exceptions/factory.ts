import type { ConnectorFactory } from '../../src/engine/component.js';
import { exceptionsConfigSchema, type ExceptionsConfig } from './config.js';
import { ExceptionsConnector } from './connector.js';

export const exceptionsFactory: ConnectorFactory<ExceptionsConfig> = {
  kind: 'connector',
  type: 'exceptions',
  from: 'traces',
  to: 'events',
  stability: 'alpha',
  description: 'Turns the exception events recorded on spans into error events linked to their trace',
  // It reads span records; the events it makes are bodies as POST /v1/events takes them, so the
  // events pipeline validates and groups them like any other.
  requires: { traces: ['validated'] },
  metrics: ['faultline_exporter_sent_items_total', 'faultline_exporter_failed_items_total'],
  configSchema: exceptionsConfigSchema,
  create: (settings) => new ExceptionsConnector(settings),
};
