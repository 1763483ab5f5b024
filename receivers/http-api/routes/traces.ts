// POST /v1/traces and GET /v1/traces/{id}.
import type { Consumer } from '../../../src/engine/component.js';
import type { Host } from '../../../src/engine/host.js';
import type { Signal } from '../../../src/engine/item.js';
import { ingestSpans, type SpanBatchResult } from '../../../src/ingest/spans.js';
import { parseJsonBody, requireJsonContentType } from '../../../src/http/body.js';
import { refusalReason, withReservedBody } from '../../../src/http/intake.js';
import { ApiError, errors } from '../../../src/http/errors.js';
import { parseJsonExact } from '../../../src/http/json.js';
import { json, principalOf, type RouteDefinition } from '../../../src/http/host.js';
import { ingestProject, INGEST_PROJECT_DOC, optional } from '../params.js';
import { readProjects, resolveProject, tenantOf } from '../../../src/auth/scope.js';

export interface TraceRoutesOptions {
  host: Host;
  receiverId: string;
  consumers: Partial<Record<Signal, Consumer>>;
}

const HEX = /^[0-9a-fA-F]+$/;

export function traceRoutes({ host, receiverId, consumers }: TraceRoutesOptions): RouteDefinition[] {
  const { catalog, storage, metrics, settings } = host;
  const { span_batch_bytes: maxBytes, spans_per_request: maxSpans } = settings.limits;
  const routes: RouteDefinition[] = [];

  const traces = consumers.traces;
  if (traces) {
    routes.push({
      method: 'POST',
      path: '/v1/traces',
      summary: 'Ingest spans; partial success like OTLP',
      tag: 'traces',
      auth: true,
      query: [INGEST_PROJECT_DOC],
      requestBody: { contentType: 'application/json', schema: spanBatchSchema },
      responses: {
        202: '{accepted, rejected, errors: [{index, path, message}]}',
        400: 'invalid_json or validation_failed (no spans array)',
        401: 'unauthorized',
        403: 'forbidden',
        408: 'request_timeout (the body took longer than limits.body_timeout_ms)',
        413: `payload_too_large (over ${maxBytes} bytes or ${maxSpans} spans)`,
        415: 'unsupported_media_type (not JSON, or a charset other than UTF-8)',
        429: 'rate_limited',
        503: 'overloaded (Retry-After)',
      },
      handler: async (ctx) => {
        const principal = principalOf(ctx);
        const project = await resolveProject(catalog, principal, ingestProject(ctx));
        const refused = (reason: string, count = 1) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'traces', reason }, count);
        let result: SpanBatchResult;
        try {
          requireJsonContentType(ctx.event);
          // Room is reserved before the body is read and held until the spans are durable.
          result = await withReservedBody(ctx.event, traces, { limit: maxBytes, timeoutMs: settings.limits.body_timeout_ms }, async (body, reserved) => {
            const batch = parseJsonBody(body, parseJsonExact);
            const spans = typeof batch === 'object' && batch !== null && !Array.isArray(batch) ? (batch as { spans?: unknown }).spans : undefined;
            if (!Array.isArray(spans))
              throw errors.validation('the body must be {"spans": [...]}', [{ path: 'spans', message: 'is required and must be an array' }]);
            if (spans.length > maxSpans) throw new ApiError(413, 'payload_too_large', `at most ${maxSpans} spans per request, got ${spans.length}`);
            return ingestSpans({ ...consumers, traces: reserved }, tenantOf(principal, project), spans);
          });
        } catch (error) {
          refused(refusalReason(error));
          throw error;
        }
        metrics.receiverAccepted.inc({ receiver: receiverId, signal: 'traces' }, result.accepted);
        if (result.rejected) refused('invalid', result.rejected);
        return json(ctx, 202, result);
      },
    });
  }

  routes.push({
    method: 'GET',
    path: '/v1/traces/:id',
    summary: 'Get a trace: spans by start time, the span tree, services, duration and linked error events',
    tag: 'traces',
    auth: true,
    query: [{ name: 'project_id', description: 'Look in this project only (default: every project the key reaches)', schema: { type: 'string' } }],
    responses: { 200: 'The trace record', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const projects = await readProjects(catalog, principal, optional(ctx.query, 'project_id'));
      const id = HEX.test(ctx.params.id) ? ctx.params.id.toLowerCase() : ctx.params.id;
      const trace = await storage.traces.get(
        principal.dataset,
        projects.map((p) => p.id),
        id,
      );
      if (!trace) throw errors.notFound(`no trace ${ctx.params.id}`);
      return json(ctx, 200, trace);
    },
  });
  return routes;
}

const attributes = { type: 'object', additionalProperties: true, description: 'Values: string, number, boolean, or arrays of those' };
const time = { type: 'integer', description: 'Epoch seconds, milliseconds, microseconds or nanoseconds (recognized by magnitude)' };
const spanBatchSchema = {
  type: 'object',
  required: ['spans'],
  properties: {
    spans: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['trace_id', 'span_id', 'name', 'start_time', 'end_time'],
        properties: {
          trace_id: { type: 'string', pattern: '^[0-9A-Za-z_-]{1,64}$' },
          span_id: { type: 'string', pattern: '^[0-9A-Za-z_-]{1,64}$' },
          parent_span_id: { type: 'string', description: 'Empty or absent for a root span' },
          name: { type: 'string' },
          service_name: { type: 'string', description: 'Default: resource_attributes["service.name"], else unknown_service' },
          start_time: time,
          end_time: { ...time, description: 'Not before start_time' },
          status: { type: 'string', enum: ['unset', 'ok', 'error'], default: 'unset' },
          status_message: { type: 'string' },
          kind: { type: 'string', enum: ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] },
          attributes,
          resource_attributes: attributes,
          events: { type: 'array', items: { type: 'object', required: ['name', 'time'], properties: { name: { type: 'string' }, time, attributes } } },
          links: { type: 'array', items: { type: 'object', required: ['trace_id', 'span_id'], properties: { trace_id: { type: 'string' }, span_id: { type: 'string' }, attributes } } },
        },
      },
    },
  },
};
