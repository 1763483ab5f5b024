import type { ReceiverFactory } from '../../src/engine/component.js';
import { monitorsConfigSchema, type MonitorsConfig } from './config.js';
import { MONITOR_METRICS } from './metrics.js';
import { MonitorsReceiver } from './receiver.js';

export const monitorsFactory: ReceiverFactory<MonitorsConfig> = {
  kind: 'receiver',
  type: 'monitors',
  signals: ['events'],
  stability: { events: 'alpha' },
  provides: {},
  // One scheduler over the service's one set of monitors.
  singleton: true,
  metrics: MONITOR_METRICS,
  extensions: ['catalog', 'alerts', 'duckdb', 'query'],
  description:
    "Cron monitors (check-ins over /v1 and Sentry SDKs) and uptime checks; a missed, failed or timed-out run or a site that is down becomes an event of the monitor's issue",
  configSchema: monitorsConfigSchema,
  create: (settings) => new MonitorsReceiver(settings),
};
