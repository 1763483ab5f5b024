// The /v1 API: ingest routes for the signals that pipelines take from this receiver, and the read
// routes over the storage layer. It mounts its routes on the service's HTTP host.
import type { Receiver, ReceiverSettings } from '../../src/engine/component.js';
import type { HttpApiConfig } from './config.js';
import { eventRoutes } from './routes/events.js';
import { issueRoutes } from './routes/issues.js';
import { projectRoutes } from './routes/projects.js';
import { traceRoutes } from './routes/traces.js';

export class HttpApiReceiver implements Receiver {
  constructor(private readonly settings: ReceiverSettings<HttpApiConfig>) {}

  async start(): Promise<void> {
    const { host, consumers, config, id } = this.settings;
    const routes = [
      ...eventRoutes({
        host,
        receiverId: id.text,
        consumer: consumers.events,
        maxBodyBytes: config.max_event_bytes ?? host.settings.limits.event_body_bytes,
      }),
      ...traceRoutes({ host, receiverId: id.text, consumers }),
      ...issueRoutes(host),
      ...projectRoutes(host),
    ];
    for (const route of routes) host.http.route(route);
  }
}
