// GET /v1/traces and GET /v1/traces/{id}.
import { readProjects } from '../../src/auth/scope.js';
import { errors } from '../../src/http/errors.js';
import { json, principalOf, type RouteDefinition } from '../../src/http/host.js';
import type { ApiContext } from './context.js';
import { MAX_TRACE_SPANS } from '../../extensions/query/index.js';
import {
  DURATION_DOCS,
  LIST_PROJECT_DOC,
  LIST_QUERY_DOCS,
  listProject,
  optional,
  parseDurations,
  parseEnum,
  parseInteger,
  parseLimit,
  parseTime,
  withCursor,
  listBody,
} from '../../src/http/params.js';

const HEX = /^[0-9a-fA-F]+$/;

export function traceRoutes({ catalog, storage }: ApiContext): RouteDefinition[] {
  const routes: RouteDefinition[] = [];

  routes.push({
    method: 'GET',
    path: '/v1/traces',
    summary: 'List traces, newest first (by their first span): root span, services, duration, span and error counts',
    tag: 'traces',
    auth: true,
    query: [
      LIST_PROJECT_DOC,
      { name: 'environment', description: "The root span's resource deployment.environment(.name), production when absent", schema: { type: 'string' } },
      {
        name: 'release',
        description: "The root span's release: <service.name>@<service.version>, as error events from spans get it",
        schema: { type: 'string' },
      },
      { name: 'service', description: 'Traces with a span of this service', schema: { type: 'string' } },
      ...DURATION_DOCS,
      { name: 'status', description: 'error: traces with a span whose status is error; ok: traces without', schema: { type: 'string', enum: ['ok', 'error'] } },
      { name: 'start', description: 'Traces that started at or after this time (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
      { name: 'end', description: 'Traces that started before this time (ISO 8601)', schema: { type: 'string', format: 'date-time' } },
      ...LIST_QUERY_DOCS,
    ],
    responses: { 200: '{data: [trace summary], has_more, next_cursor}', 400: 'invalid_parameter', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const q = ctx.query;
      const limit = parseLimit(q);
      const durations = parseDurations(q);
      const status = parseEnum(q, 'status', ['ok', 'error'] as const);
      const start = parseTime(q, 'start');
      const end = parseTime(q, 'end');
      const project = await listProject(catalog, principal, q);
      const page = await withCursor(() =>
        storage.traces.list(
          {
            dataset: principal.dataset,
            projectId: project.id,
            environment: optional(q, 'environment'),
            release: optional(q, 'release'),
            service: optional(q, 'service'),
            ...durations,
            status,
            start,
            end,
          },
          limit,
          optional(q, 'cursor'),
        ),
      );
      return json(ctx, 200, listBody(page));
    },
  });

  routes.push({
    method: 'GET',
    path: '/v1/traces/:id',
    summary: 'Get a trace: spans by start time, the span tree, services, duration and linked error events',
    tag: 'traces',
    auth: true,
    query: [
      { name: 'project_id', description: 'Look in this project only (default: every project the key reaches)', schema: { type: 'string' } },
      {
        name: 'spans_limit',
        description: `Most spans in the response, in start order (1-${MAX_TRACE_SPANS}); the head (span_count, duration, services) covers all, and truncated says whether more follow`,
        schema: { type: 'integer', minimum: 1, maximum: MAX_TRACE_SPANS, default: MAX_TRACE_SPANS },
      },
      {
        name: 'spans_offset',
        description: 'Skip this many spans (next_spans_offset of the previous response)',
        schema: { type: 'integer', minimum: 0, default: 0 },
      },
    ],
    responses: { 200: 'The trace record', 400: 'invalid_parameter (spans_limit, spans_offset)', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
      const id = HEX.test(ctx.params.id) ? ctx.params.id.toLowerCase() : ctx.params.id;
      const page = {
        offset: parseInteger(ctx.query, 'spans_offset', 0, 0, Number.MAX_SAFE_INTEGER),
        limit: parseInteger(ctx.query, 'spans_limit', MAX_TRACE_SPANS, 1, MAX_TRACE_SPANS),
      };
      const trace = await storage.traces.get(
        principal.dataset,
        projects.map((p) => p.id),
        id,
        page,
      );
      if (!trace) throw errors.notFound(`no trace ${ctx.params.id}`);
      return json(ctx, 200, trace);
    },
  });
  return routes;
}
