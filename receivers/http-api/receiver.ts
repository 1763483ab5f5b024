// The /v1 ingest API: POST routes for the signals that pipelines take from this receiver, mounted
// on the service's HTTP host. The read routes are the service's (frontends/api/), not a receiver's.
import type { Receiver, ReceiverSettings } from '../../src/engine/component.js';
import type { HttpApiConfig } from './config.js';
import { eventIngestRoute } from './routes/events.js';
import { replayIngestRoute } from './routes/replays.js';
import { traceIngestRoute } from './routes/traces.js';
import { sentryRoutes } from './sentry/routes.js';
import { httpServerOf } from '../../src/http/server-extension.js';

export class HttpApiReceiver implements Receiver {
  constructor(private readonly settings: ReceiverSettings<HttpApiConfig>) {}

  async start(): Promise<void> {
    const { host, consumers, config, id } = this.settings;
    if (consumers.events)
      httpServerOf(host).route(
        eventIngestRoute({
          host,
          receiverId: id.text,
          consumer: consumers.events,
          maxBodyBytes: config.max_event_bytes,
        }),
      );
    if (consumers.traces) httpServerOf(host).route(traceIngestRoute({ host, receiverId: id.text, consumer: consumers.traces }));
    if (consumers.replays)
      httpServerOf(host).route(
        replayIngestRoute({
          host,
          receiverId: id.text,
          consumer: consumers.replays,
          maxBytes: config.max_replay_chunk_bytes ?? host.settings.limits.replay_chunk_bytes,
        }),
      );
    if (config.sentry.enabled && (consumers.events || consumers.traces)) {
      const routes = sentryRoutes({
        host,
        receiverId: id.text,
        consumers,
        maxEnvelopeBytes: config.sentry.max_envelope_bytes,
        maxEventBytes: config.max_event_bytes,
        maxAttachmentBytes: config.sentry.max_attachment_bytes,
      });
      for (const route of routes) httpServerOf(host).route(route);
    }
  }
}
