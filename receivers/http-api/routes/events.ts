// POST /v1/events, GET /v1/events, GET /v1/events/{id}.
import type { Consumer } from '../../../src/engine/component.js';
import type { Host } from '../../../src/engine/host.js';
import type { Item } from '../../../src/engine/item.js';
import { parseJsonBody, requireJsonContentType } from '../../../src/http/body.js';
import { refusalReason, withReservedBody } from '../../../src/http/intake.js';
import { ApiError, errors, type ErrorCode } from '../../../src/http/errors.js';
import { json, principalOf, type RouteDefinition } from '../../../src/http/host.js';
import { LEVELS, type ErrorEvent } from '../../../src/records/event.js';
import { InvalidCursorError } from '../../../src/storage/cursor.js';
import { errorEventJsonSchema } from '../../../src/records/event-schema.js';
import { ingestProject, INGEST_PROJECT_DOC, LIST_QUERY_DOCS, optional, parseEnum, parseLimit, parseTime } from '../params.js';
import { parseQuery } from '../query-syntax.js';
import { readProjects, resolveProject, tenantOf } from '../../../src/auth/scope.js';

export interface EventRoutesOptions {
  host: Host;
  receiverId: string;
  consumer?: Consumer;
  maxBodyBytes: number;
}

export function eventRoutes({ host, receiverId, consumer, maxBodyBytes }: EventRoutesOptions): RouteDefinition[] {
  const { catalog, storage, metrics, settings } = host;
  const refused = (reason: string) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'events', reason });
  const routes: RouteDefinition[] = [];

  if (consumer) {
    routes.push({
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
        408: 'request_timeout (the body took longer than limits.body_timeout_ms)',
        413: 'payload_too_large',
        415: 'unsupported_media_type (not JSON, or a charset other than UTF-8)',
        429: 'rate_limited',
        503: 'overloaded (Retry-After)',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = await resolveProject(catalog, principal, ingestProject(ctx));
        const item: Item = { data: undefined, tenant: tenantOf(principal, project), receivedAt: 0, size: Number(ctx.event.req.headers.get('content-length')) || 4096 };
        try {
          requireJsonContentType(ctx.event);
          // Room is reserved before the body is read (a refusal costs neither the read nor the
          // parse) and held until the event is durable.
          await withReservedBody(ctx.event, consumer, { limit: maxBodyBytes, timeoutMs: settings.limits.body_timeout_ms }, async (body, reserved) => {
            item.data = parseJsonBody(body);
            item.receivedAt = Date.now();
            await reserved.consume([item]);
          });
        } catch (error) {
          refused(refusalReason(error));
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
    });
  }

  routes.push({
    method: 'GET',
    path: '/v1/events',
    summary: 'List error events, newest first',
    tag: 'events',
    auth: true,
    query: [
      { name: 'project_id', description: 'Project (optional with a project key; organization keys default to the default project)', schema: { type: 'string' } },
      { name: 'environment', description: 'Exact environment', schema: { type: 'string' } },
      { name: 'release', description: 'Exact release', schema: { type: 'string' } },
      { name: 'issue_id', description: 'Events of one issue', schema: { type: 'string' } },
      { name: 'level', description: 'fatal, error, warning, info or debug', schema: { type: 'string', enum: [...LEVELS] } },
      { name: 'start', description: 'Events at or after this time (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
      { name: 'end', description: 'Events before this time (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
      {
        name: 'query',
        description: 'Free text over type, value and message, plus release:, environment:, level:, user.id:, user.email:, trace_id:, tags.<key>: tokens',
        schema: { type: 'string' },
      },
      ...LIST_QUERY_DOCS,
    ],
    responses: { 200: '{data: [event], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const q = ctx.query;
      const limit = parseLimit(q);
      const start = parseTime(q, 'start');
      const end = parseTime(q, 'end');
      const level = parseEnum(q, 'level', LEVELS);
      const project = await resolveProject(catalog, principal, optional(q, 'project_id'));
      const search = parseQuery(q.get('query') ?? '');
      try {
        const page = await storage.events.list(
          {
            dataset: principal.dataset,
            projectId: project.id,
            environment: all(optional(q, 'environment'), search.environment),
            release: all(optional(q, 'release'), search.release),
            issueId: all(optional(q, 'issue_id')),
            level: all(level, search.level),
            start,
            end,
            text: search.text,
            tags: search.tags,
            userId: all(search.userId),
            userEmail: all(search.userEmail),
            traceId: all(search.traceId),
          },
          limit,
          optional(q, 'cursor'),
        );
        const body = `{"data":[${page.docs.join(',')}],"has_more":${page.nextCursor !== null},"next_cursor":${JSON.stringify(page.nextCursor)}}`;
        return json(ctx, 200, body);
      } catch (error) {
        if (error instanceof InvalidCursorError) throw errors.invalidParameter('cursor', error.message);
        throw error;
      }
    },
  });

  routes.push({
    method: 'GET',
    path: '/v1/events/:id',
    summary: 'Get one error event with its symbolicated stack trace, issue and root cause',
    tag: 'events',
    auth: true,
    query: [{ name: 'project_id', description: 'Look in this project only', schema: { type: 'string' } }],
    responses: { 200: 'The event', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
      const doc = await storage.events.get(
        principal.dataset,
        projects.map((p) => p.id),
        normalizeEventId(ctx.params.id),
      );
      if (!doc) throw errors.notFound(`no event ${ctx.params.id}`);
      return json(ctx, 200, doc);
    },
  });

  return routes;
}

/** Event ids are stored as lower-case dashed UUIDs; Sentry SDKs write them as 32 hex digits. */
function normalizeEventId(id: string): string {
  const lower = id.toLowerCase();
  return /^[0-9a-f]{32}$/.test(lower)
    ? `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}`
    : lower;
}

/** The values given for one filter, from parameters and query tokens alike. */
function all(...values: Array<string | undefined>): string[] | undefined {
  const given = values.filter((v): v is string => v !== undefined);
  return given.length ? given : undefined;
}
