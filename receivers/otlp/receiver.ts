// OTLP/HTTP on its own port (4318 by default): POST /v1/traces in protobuf or JSON, optionally
// gzip. Answers in the request's encoding, as the OTLP specification asks: an
// ExportTraceServiceResponse (with partial_success when spans were rejected) or a google.rpc.Status
// with the retryable codes (429, 503 + Retry-After) that make stock exporters back off and retry.
import { FastResponse } from 'srvx';
import type { Principal } from '../../src/auth/authenticator.js';
import type { Consumer, Receiver, ReceiverSettings } from '../../src/engine/component.js';
import { consumeBatch, type BatchResult } from '../../src/engine/batch.js';
import { ExportError, OverloadedError, ShuttingDownError } from '../../src/engine/errors.js';
import type { Tenant } from '../../src/engine/item.js';
import { bodyLeftUnread, ClientAbortError, unsupportedCharset } from '../../src/http/body.js';
import { refusalReason, withReservedBody } from '../../src/http/intake.js';
import { ApiError } from '../../src/http/errors.js';
import { HttpHost, type RequestContext } from '../../src/http/host.js';
import { VERSION } from '../../src/version.js';
import type { SpanInput } from '../../src/records/span.js';
import { resolveProject, tenantOf } from '../../src/auth/scope.js';
import type { OtlpConfig } from './config.js';
import { decodeTraceRequestJson, encodeStatusJson, encodeTraceResponseJson } from '../../src/otlp/decode/json.js';
import { decodeTraceRequestProtobuf, encodeStatusProtobuf, encodeTraceResponseProtobuf } from '../../src/otlp/decode/protobuf.js';
import { OtlpDecodeError } from '../../src/otlp/decode/errors.js';
import { countSpans, otlpIdErrors, type DecodedTraceRequest } from '../../src/otlp/decode/to-span-inputs.js';
import { authenticatorOf, catalogOf } from '../../extensions/catalog/index.js';
import { httpServerOf, listenersOf } from '../../src/http/server-extension.js';

type Encoding = 'protobuf' | 'json';

/** What one span is charged against the traces pipelines' budgets. */
const SPAN_SIZE = 512;

/** google.rpc.Code values used in Status bodies. */
const RPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  INTERNAL: 13,
  UNIMPLEMENTED: 12,
};

class OtlpFailure extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Not one of the refusals the receiver means to give: worth a log line. */
    readonly unexpected = false,
  ) {
    super(message);
  }
}

export class OtlpReceiver implements Receiver {
  private server?: HttpHost;

  constructor(private readonly settings: ReceiverSettings<OtlpConfig>) {}

  async start(): Promise<void> {
    const { host, config, id } = this.settings;
    const server = new HttpHost({
      host: config.host,
      port: config.port,
      auth: authenticatorOf(host),
      metrics: host.metrics,
      logger: host.logger,
      rateLimiter: httpServerOf(host).rateLimiter,
      rateLimit: host.settings.limits.rate_limit,
      version: VERSION,
    });
    server.route({
      method: 'POST',
      path: '/v1/traces',
      summary: 'OTLP/HTTP trace export',
      tag: 'otlp',
      auth: false, // answered in OTLP's own encoding below
      responses: { 200: 'ExportTraceServiceResponse' },
      handler: (ctx) => this.export(ctx),
    });
    const port = await server.listen();
    server.ready = true;
    listenersOf(host).set(id.text, port);
    this.server = server;
  }

  async shutdown(): Promise<void> {
    await this.server?.close();
  }

  private async export(ctx: RequestContext): Promise<Response> {
    const contentType = ctx.event.req.headers.get('content-type');
    const encoding = encodingOf(contentType);
    const { host, id } = this.settings;
    const refused = (reason: string, count = 1) => host.metrics.receiverRefused.inc({ receiver: id.text, signal: 'traces', reason }, count);
    try {
      if (!encoding) throw new OtlpFailure(415, RPC.INVALID_ARGUMENT, 'unsupported content type; send application/x-protobuf or application/json');
      const charset = encoding === 'json' ? unsupportedCharset(contentType) : undefined;
      if (charset) throw new OtlpFailure(415, RPC.INVALID_ARGUMENT, charset);
      const principal = await authenticatorOf(host).authenticate(ctx.event.req.headers.get('authorization'));
      if (!principal)
        throw new OtlpFailure(401, RPC.UNAUTHENTICATED, 'a valid API key is required: Authorization: Bearer <key>', {
          'www-authenticate': 'Bearer realm="faultline"',
        });
      const wait = httpServerOf(host).rateLimiter.take(principal.keyId);
      if (wait > 0) throw new OtlpFailure(429, RPC.RESOURCE_EXHAUSTED, 'too many requests for this API key', { 'retry-after': String(wait) });

      const traces = this.settings.consumers.traces;
      if (!traces) throw new Error('no traces pipeline takes spans from this receiver');
      const limits = { limit: host.settings.limits.span_batch_bytes, timeoutMs: host.settings.limits.body_timeout_ms };
      // Room is reserved before the body is read and held until the spans are durable.
      const result = await withReservedBody(ctx.event, traces, limits, async (body, reserved) => {
        const request = encoding === 'protobuf' ? decodeTraceRequestProtobuf(body) : decodeTraceRequestJson(body.toString('utf8'));
        const total = countSpans(request);
        const maxSpans = host.settings.limits.spans_per_request;
        if (total > maxSpans) throw new OtlpFailure(413, RPC.INVALID_ARGUMENT, `at most ${maxSpans} spans per request, got ${total}`);
        return this.ingest(ctx, principal, request, reserved);
      });
      host.metrics.receiverAccepted.inc({ receiver: id.text, signal: 'traces' }, result.accepted);
      if (result.rejected) refused('invalid', result.rejected);
      const partial = result.rejected ? { rejected: result.rejected, message: summarize(result) } : undefined;
      return respond(ctx, 200, encoding, encoding === 'protobuf' ? encodeTraceResponseProtobuf(partial) : encodeTraceResponseJson(partial));
    } catch (error) {
      const failure = toFailure(error);
      if (failure.unexpected) host.logger.error({ err: error }, 'otlp export failed');
      else if (error instanceof ClientAbortError) host.logger.debug({ err: error }, 'the client closed the connection mid-request');
      refused(refusalReason(failure));
      const enc = encoding ?? 'json';
      const status = enc === 'protobuf' ? encodeStatusProtobuf(failure.rpcCode, failure.message) : encodeStatusJson(failure.rpcCode, failure.message);
      const close: Record<string, string> = bodyLeftUnread(ctx.event) ? { connection: 'close' } : {}; // the rest of the body is still coming
      return respond(ctx, failure.status, enc, status, { ...failure.headers, ...close });
    }
  }

  /**
   * Spans with ids OTLP calls invalid are rejected here; the others go to the pipelines, routed
   * per resource: a project key sends to its project; an organization key names the project in
   * the x-faultline-project header or the resource attribute faultline.project. Error indexes
   * are the spans' positions in the whole request.
   */
  private async ingest(ctx: RequestContext, principal: Principal, request: DecodedTraceRequest, traces: Consumer): Promise<BatchResult> {
    const { host } = this.settings;
    const result: BatchResult = { accepted: 0, rejected: 0, errors: [] };
    const header = ctx.event.req.headers.get('x-faultline-project') ?? undefined;
    const groups = new Map<string, { tenant: Tenant; spans: SpanInput[]; indexes: number[] }>();
    let index = 0;
    for (const resource of request.resourceSpans) {
      const attribute = resource.resource['faultline.project'];
      const requested = header ?? (typeof attribute === 'string' ? attribute : undefined);
      const project = await resolveProject(catalogOf(host), principal, requested);
      const group = groups.get(project.id) ?? { tenant: tenantOf(principal, project), spans: [], indexes: [] };
      for (const span of resource.spans) {
        const invalid = otlpIdErrors(span);
        if (invalid.length) {
          result.rejected++;
          for (const error of invalid) result.errors.push({ index, ...error });
        } else {
          group.spans.push(span);
          group.indexes.push(index);
        }
        index++;
      }
      groups.set(project.id, group);
    }
    for (const { tenant, spans, indexes } of groups.values()) {
      if (!spans.length) continue;
      const part = await consumeBatch(traces, spans, tenant, SPAN_SIZE);
      result.accepted += part.accepted;
      result.rejected += part.rejected;
      for (const error of part.errors) result.errors.push({ ...error, index: indexes[error.index] });
    }
    result.errors.sort((a, b) => a.index - b.index);
    return result;
  }
}

function encodingOf(contentType: string | null): Encoding | undefined {
  const essence = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (essence === 'application/x-protobuf' || essence === 'application/protobuf') return 'protobuf';
  if (essence === 'application/json') return 'json';
  return undefined;
}

function respond(ctx: RequestContext, status: number, encoding: Encoding, body: Uint8Array | string, headers: Record<string, string> = {}): Response {
  return new FastResponse(body as ConstructorParameters<typeof Response>[0], {
    status,
    headers: {
      'content-type': encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json',
      'x-request-id': ctx.requestId,
      ...headers,
    },
  });
}

function summarize(result: BatchResult): string {
  const shown = result.errors.slice(0, 5).map((e) => `span ${e.index}: ${e.path || 'span'} ${e.message}`);
  const more = result.errors.length > shown.length ? `; and ${result.errors.length - shown.length} more` : '';
  return `${result.rejected} span(s) rejected: ${shown.join('; ')}${more}`;
}

function toFailure(error: unknown): OtlpFailure {
  if (error instanceof OtlpFailure) return error;
  if (error instanceof OtlpDecodeError) return new OtlpFailure(400, RPC.INVALID_ARGUMENT, error.message);
  if (error instanceof ClientAbortError) return new OtlpFailure(499, RPC.CANCELLED, error.message);
  if (error instanceof OverloadedError)
    return new OtlpFailure(503, RPC.UNAVAILABLE, 'over the in-flight budget; retry later', { 'retry-after': String(error.retryAfterSeconds) });
  if (error instanceof ShuttingDownError) return new OtlpFailure(503, RPC.UNAVAILABLE, error.message, { 'retry-after': '1' });
  if (error instanceof ExportError)
    return new OtlpFailure(
      503,
      RPC.UNAVAILABLE,
      'storage is unavailable; nothing was acknowledged, retry later',
      { 'retry-after': String(error.retryAfterSeconds) },
      true,
    );
  if (error instanceof ApiError) {
    const code = error.status === 403 ? RPC.PERMISSION_DENIED : error.status === 503 ? RPC.UNAVAILABLE : RPC.INVALID_ARGUMENT;
    return new OtlpFailure(error.status, code, error.message, error.headers);
  }
  return new OtlpFailure(503, RPC.UNAVAILABLE, 'storage is unavailable; nothing was acknowledged, retry later', { 'retry-after': '5' }, true);
}
