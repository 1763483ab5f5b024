// POST /v1/events: one error event into the events pipelines.
import type { Consumer } from '../../../src/engine/component.js';
import type { Host } from '../../../src/engine/host.js';
import type { Item } from '../../../src/engine/item.js';
import { readJson } from '../../../src/http/body.js';
import { ApiError, type ErrorCode } from '../../../src/http/errors.js';
import { json, principalOf, type RouteDefinition } from '../../../src/http/host.js';
import type { ErrorEvent } from '../../../src/records/event.js';
import { errorEventJsonSchema } from '../../../src/records/event-schema.js';
import { resolveProject, tenantOf } from '../../../src/auth/scope.js';
import { ingestProject, INGEST_PROJECT_DOC } from '../ingest-params.js';

export interface EventIngestOptions {
  host: Host;
  receiverId: string;
  consumer: Consumer;
  maxBodyBytes: number;
}

export function eventIngestRoute({ host, receiverId, consumer, maxBodyBytes }: EventIngestOptions): RouteDefinition {
  const { catalog, metrics, settings } = host;
  const refused = (reason: string) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'events', reason });
  return {
    method: 'POST',
    path: '/v1/events',
    summary: 'Ingest one error event',
    tag: 'events',
    auth: true,
    query: [INGEST_PROJECT_DOC],
    requestBody: { contentType: 'application/json', schema: errorEventJsonSchema },
    responses: {
      202: 'Accepted and durable: {id, status: "queued", permalink}',
      400: 'invalid_json or validation_failed (every problem listed in details)',
      401: 'unauthorized',
      403: 'forbidden',
      404: 'not_found (project)',
      413: 'payload_too_large',
      415: 'unsupported_media_type',
      429: 'rate_limited',
      503: 'overloaded (Retry-After), or unavailable when storage or the catalog cannot take it (retry)',
    },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const project = await resolveProject(catalog, principal, ingestProject(ctx));
      const size = Number(ctx.event.req.headers.get('content-length')) || 4096;
      try {
        consumer.assertRoom(1, size); // refuse before reading and parsing the body
      } catch (error) {
        refused('overloaded');
        throw error;
      }
      let data: unknown;
      try {
        data = await readJson(ctx.event, maxBodyBytes);
      } catch (error) {
        refused(error instanceof ApiError && error.status === 413 ? 'too_large' : 'invalid');
        throw error;
      }
      const item: Item = {
        data,
        tenant: tenantOf(principal, project),
        receivedAt: Date.now(),
        size,
      };
      try {
        await consumer.consume([item]);
      } catch (error) {
        refused('overloaded');
        throw error;
      }
      const outcome = item.outcome;
      if (outcome?.kind === 'rejected') {
        refused('invalid');
        throw new ApiError(400, outcome.code as ErrorCode, outcome.message, outcome.details);
      }
      const event = item.data as ErrorEvent;
      if (outcome?.kind === 'dropped') return json(ctx, 202, { id: event.id ?? null, status: 'dropped', reason: outcome.reason });
      metrics.receiverAccepted.inc({ receiver: receiverId, signal: 'events' });
      return json(ctx, 202, { id: event.id, status: 'queued', permalink: `${settings.app_url}/issues/${event.issue_id}` });
    },
  };
}
