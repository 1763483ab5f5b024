// GET /v1/events, GET /v1/events/{id} and GET /v1/events/{id}/attachments/{attachment_id}.
import { readProjects } from '../../src/auth/scope.js';
import type { Dataset } from '../../src/engine/item.js';
import { errors } from '../../src/http/errors.js';
import { FastResponse } from 'srvx';
import { json, principalOf, type RequestContext, type RouteDefinition } from '../../src/http/host.js';
import { LEVELS } from '../../src/records/event.js';
import { InvalidCursorError } from '../../src/http/cursor.js';
import type { ApiContext } from './context.js';
import { LIST_PROJECT_DOC, LIST_QUERY_DOCS, listProject, optional, parseEnum, parseLimit, parseTime } from '../../src/http/params.js';
import { searchConditions, parseQuery } from '../../extensions/query/index.js';

export function eventRoutes({ catalog, storage, attachments }: ApiContext): RouteDefinition[] {
  const routes: RouteDefinition[] = [];
  /** What the routes under /v1/events/{id} share. */
  const oneEvent: Pick<RouteDefinition, 'method' | 'tag' | 'auth' | 'query'> = {
    method: 'GET',
    tag: 'events',
    auth: true,
    query: [{ name: 'project_id', description: 'Look in this project only', schema: { type: 'string' } }],
  };

  routes.push({
    method: 'GET',
    path: '/v1/events',
    summary: 'List error events, newest first',
    tag: 'events',
    auth: true,
    query: [
      LIST_PROJECT_DOC,
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
      const project = await listProject(catalog, principal, q);
      const search = parseQuery(q.get('query') ?? '');
      try {
        const page = await storage.events.list(
          {
            dataset: principal.dataset,
            projectId: project.id,
            ...searchConditions(search, {
              environment: optional(q, 'environment'),
              release: optional(q, 'release'),
              issueId: optional(q, 'issue_id'),
              level,
              start,
              end,
            }),
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
    ...oneEvent,
    path: '/v1/events/:id',
    summary: 'Get one error event with its symbolicated stack trace, issue and root cause',
    responses: { 200: 'The event', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const { doc, id, projectId, dataset } = await readEvent(ctx);
      const files = await attachments.list(dataset, projectId, id);
      // Attachments (sent by Sentry SDKs with the event) are listed when there are any.
      return json(ctx, 200, files.length ? `${doc.slice(0, -1)},"attachments":${JSON.stringify(files)}}` : doc);
    },
  });

  routes.push({
    ...oneEvent,
    path: '/v1/events/:id/attachments/:attachment_id',
    summary: 'Download an attachment a Sentry SDK sent with the event (its bytes, with the content type it was sent with)',
    responses: { 200: 'The bytes', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found (no such event, or no such attachment on it)' },
    handler: async (ctx) => {
      // The event is looked up first, with the reader's dataset and projects: an attachment is
      // reachable exactly when its event is.
      const { id, projectId, dataset } = await readEvent(ctx);
      const found = await attachments.get(dataset, projectId, id, ctx.params.attachment_id);
      if (!found) throw errors.notFound(`no attachment ${ctx.params.attachment_id} on event ${ctx.params.id}`);
      const { attachment, bytes } = found;
      return new FastResponse(bytes, {
        status: 200,
        headers: {
          'content-type': attachment.content_type ?? 'application/octet-stream',
          'content-length': String(bytes.length),
          // What an SDK sent is never rendered as a page of this origin.
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(attachment.name)}`,
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
          'x-request-id': ctx.requestId,
        },
      });
    },
  });

  return routes;

  /** The event of `/v1/events/:id…` as the reader may see it (404 otherwise). */
  async function readEvent(ctx: RequestContext): Promise<{ doc: string; id: string; projectId: string; dataset: Dataset }> {
    const principal = principalOf(ctx);
    const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
    const doc = await storage.events.get(
      principal.dataset,
      projects.map((p) => p.id),
      normalizeEventId(ctx.params.id),
    );
    if (!doc) throw errors.notFound(`no event ${ctx.params.id}`);
    const { id, project_id: projectId } = JSON.parse(doc) as { id: string; project_id: string };
    return { doc, id, projectId, dataset: principal.dataset };
  }
}

/** Event ids are stored as lower-case dashed UUIDs; Sentry SDKs write them as 32 hex digits. */
function normalizeEventId(id: string): string {
  const lower = id.toLowerCase();
  return /^[0-9a-f]{32}$/.test(lower) ? `${lower.slice(0, 8)}-${lower.slice(8, 12)}-${lower.slice(12, 16)}-${lower.slice(16, 20)}-${lower.slice(20)}` : lower;
}
