// POST /v1/traces: spans into the traces pipelines, answered with partial success like OTLP.
import type { Consumer } from '../../../src/engine/component.js';
import { catalogOf } from '../../../extensions/catalog/index.js';
import type { Host } from '../../../src/engine/host.js';
import { consumeBatch, type BatchResult } from '../../../src/engine/batch.js';
import { parseJsonBody, requireJsonContentType } from '../../../src/http/body.js';
import { refusalReason, withReservedBody } from '../../../src/http/intake.js';
import { ApiError, errors } from '../../../src/http/errors.js';
import { parseJsonExact } from '../../../src/http/json.js';
import { json, principalOf, type RouteDefinition } from '../../../src/http/host.js';
import { resolveProject, tenantOf } from '../../../src/auth/scope.js';
import { INGEST_BODY_PROJECT_DOC, ingestProject, projectOfBody } from '../ingest-params.js';

export interface TraceIngestOptions {
  host: Host;
  receiverId: string;
  consumer: Consumer;
}

/** What one span is charged against the traces pipelines' budgets. */
const SPAN_SIZE = 512;

export function traceIngestRoute({ host, receiverId, consumer }: TraceIngestOptions): RouteDefinition {
  const { metrics, settings } = host;
  const catalog = catalogOf(host);
  const { span_batch_bytes: maxBytes, spans_per_request: maxSpans } = settings.limits;
  return {
    method: 'POST',
    path: '/v1/traces',
    summary: 'Ingest spans; partial success like OTLP',
    tag: 'traces',
    auth: true,
    query: [INGEST_BODY_PROJECT_DOC],
    requestBody: { contentType: 'application/json', schema: spanBatchSchema },
    responses: {
      202: '{accepted, rejected, errors: [{index, path, message}]}',
      400: 'invalid_json, validation_failed (no spans array), or invalid_parameter (project_id: the body names another project than the query or header)',
      401: 'unauthorized',
      403: 'forbidden',
      404: 'not_found (project)',
      408: 'request_timeout (the body took longer than limits.body_timeout_ms)',
      413: `payload_too_large (over ${maxBytes} bytes or ${maxSpans} spans)`,
      415: 'unsupported_media_type (not JSON, or a charset other than UTF-8)',
      429: 'rate_limited',
      503: 'overloaded (Retry-After), or unavailable when storage or the catalog cannot take it (retry)',
    },
    handler: async (ctx) => {
      const principal = principalOf(ctx);
      const requested = ingestProject(ctx);
      const refused = (reason: string, count = 1) => metrics.receiverRefused.inc({ receiver: receiverId, signal: 'traces', reason }, count);
      let result: BatchResult;
      try {
        requireJsonContentType(ctx.event);
        // Room is reserved before the body is read and held until the spans are durable.
        result = await withReservedBody(ctx.event, consumer, { limit: maxBytes, timeoutMs: settings.limits.body_timeout_ms }, async (body, reserved) => {
          const batch = parseJsonBody(body, parseJsonExact);
          const spans = typeof batch === 'object' && batch !== null && !Array.isArray(batch) ? (batch as { spans?: unknown }).spans : undefined;
          if (!Array.isArray(spans))
            throw errors.validation('the body must be {"spans": [...]}', [{ path: 'spans', message: 'is required and must be an array' }]);
          if (spans.length > maxSpans) throw new ApiError(413, 'payload_too_large', `at most ${maxSpans} spans per request, got ${spans.length}`);
          const project = await resolveProject(catalog, principal, projectOfBody(requested, batch));
          return consumeBatch(reserved, spans, tenantOf(principal, project), SPAN_SIZE);
        });
      } catch (error) {
        refused(refusalReason(error));
        throw error;
      }
      metrics.receiverAccepted.inc({ receiver: receiverId, signal: 'traces' }, result.accepted);
      if (result.rejected) refused('invalid', result.rejected);
      return json(ctx, 202, result);
    },
  };
}

const attributes = { type: 'object', additionalProperties: true, description: 'Values: string, number, boolean, or arrays of those' };
const time = { type: 'integer', description: 'Epoch seconds, milliseconds, microseconds or nanoseconds (recognized by magnitude)' };
const spanBatchSchema = {
  type: 'object',
  required: ['spans'],
  properties: {
    project_id: { type: 'string', description: 'Target project, as the project_id query parameter' },
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
          links: {
            type: 'array',
            items: { type: 'object', required: ['trace_id', 'span_id'], properties: { trace_id: { type: 'string' }, span_id: { type: 'string' }, attributes } },
          },
        },
      },
    },
  },
};
