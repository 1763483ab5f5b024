// GET /v1/traces/{id}.
import { readProjects } from '../auth/scope.js';
import { errors } from '../http/errors.js';
import { json, principalOf, type RouteDefinition } from '../http/host.js';
import type { ApiContext } from './context.js';
import { MAX_TRACE_SPANS } from '../storage/traces.js';
import { optional, parseInteger } from './params.js';

const HEX = /^[0-9a-fA-F]+$/;

export function traceRoutes({ catalog, storage }: ApiContext): RouteDefinition[] {
  const routes: RouteDefinition[] = [];

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
