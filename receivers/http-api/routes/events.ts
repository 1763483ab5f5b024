// POST /v1/events: one error event into the events pipelines.
import type { Consumer } from '../../../src/engine/component.js';
import { catalogOf } from '../../../extensions/catalog/index.js';
import type { Host } from '../../../src/engine/host.js';
import { parseJsonBody, requireJsonContentType } from '../../../src/http/body.js';
import { takeOne } from '../../../src/http/intake.js';
import { json, principalOf, type RouteDefinition } from '../../../src/http/host.js';
import type { ErrorEvent } from '../../../src/records/event.js';
import { keepReceivedBody } from '../../../src/records/event-body.js';
import { errorEventJsonSchema } from '../../../src/records/event-schema.js';
import { resolveProject, tenantOf } from '../../../src/auth/scope.js';
import { INGEST_BODY_PROJECT_DOC, ingestProject, projectOfBody } from '../ingest-params.js';

export interface EventIngestOptions {
  host: Host;
  receiverId: string;
  consumer: Consumer;
  maxBodyBytes: number;
}

export function eventIngestRoute({ host, receiverId, consumer, maxBodyBytes }: EventIngestOptions): RouteDefinition {
  const { metrics, settings } = host;
  const catalog = catalogOf(host);
  const refused = (reason: string) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'events', reason });
  // Bound once: the labels are not made again per request.
  const accepted = metrics.receiverAccepted.labels({ receiver: receiverId, signal: 'events' });
  // The bytes stay with the parsed body: the duckdb exporter may store them as received.
  const parse = (body: Buffer) => keepReceivedBody(parseJsonBody(body), body);
  return {
    method: 'POST',
    path: '/v1/events',
    summary: 'Ingest one error event',
    tag: 'events',
    auth: true,
    lean: true, // the hottest route: served from node:http before h3 builds a web Request (src/http/host.ts)
    query: [INGEST_BODY_PROJECT_DOC],
    requestBody: { contentType: 'application/json', schema: errorEventJsonSchema },
    responses: {
      202: 'Accepted and durable: {id, status: "queued", permalink}',
      400: 'invalid_json, validation_failed (every problem listed in details), or invalid_parameter (project_id: the body names another project than the query or header)',
      401: 'unauthorized',
      403: 'forbidden',
      404: 'not_found (project)',
      408: 'request_timeout (the body took longer than limits.body_timeout_ms)',
      413: 'payload_too_large',
      415: 'unsupported_media_type (not JSON, or a charset other than UTF-8)',
      429: 'rate_limited',
      503: 'overloaded (Retry-After), or unavailable when storage or the catalog cannot take it (retry)',
    },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const requested = ingestProject(ctx);
      const item = await takeOne(ctx.event, consumer, {
        tenant: async (body) => tenantOf(principal, await resolveProject(catalog, principal, projectOfBody(requested, body))),
        size: Number(ctx.event.req.headers.get('content-length')) || 4096,
        limit: maxBodyBytes,
        timeoutMs: settings.limits.body_timeout_ms,
        check: () => requireJsonContentType(ctx.event),
        parse,
        refused,
      });
      const outcome = item.outcome;
      const event = item.data as ErrorEvent;
      if (outcome?.kind === 'dropped') return json(ctx, 202, { id: event.id ?? null, status: 'dropped', reason: outcome.reason });
      accepted.inc();
      // An ingest node (no grouping before its kafka exporter) does not know the issue yet: the
      // permalink then names the event, which the issue page of the UI resolves.
      const permalink = event.issue_id ? `${settings.app_url}/issues/${event.issue_id}` : `${settings.app_url}/events/${event.id}`;
      return json(ctx, 202, { id: event.id, status: 'queued', permalink });
    },
  };
}
