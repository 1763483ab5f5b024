// What the service offers the components and extensions it creates: a logger, the metrics, the
// service settings, and the running extensions by id (src/engine/extension.ts). Everything shared
// — the database, the catalog, the alert store, the HTTP server — is an extension, reached through
// the typed getter its `index.ts` exports (`catalogOf(host)`); the engine only passes the host along.
import type { Logger } from 'pino';
import type { ServiceSettings } from '../config/service-schema.js';
import type { Metrics } from '../telemetry/metrics.js';
import type { ExtensionLookup } from './extension.js';

export interface Host extends ExtensionLookup {
  logger: Logger;
  metrics: Metrics;
  settings: ServiceSettings;
}
