// The service's HTTP server (h3 on srvx). It gives every request an id, authenticates and
// rate-limits the routes that need a key, turns every failure into the one error body (also what
// Node's HTTP parser refuses before any route sees it), records latency, and keeps the OpenAPI
// description of every route it serves.
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { H3, HTTPError, type H3Event } from 'h3';
import { serve, type Server } from 'srvx';
import { sendNodeResponse } from 'srvx/node';
import type { Logger } from 'pino';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { ExportError, OverloadedError, ShuttingDownError } from '../engine/errors.js';
import type { Metrics } from '../telemetry/metrics.js';
import { bodyLeftUnread, ClientAbortError } from './body.js';
import { ApiError, errorBody, errors } from './errors.js';
import { buildOpenApi, type RouteDoc } from './openapi.js';
import { JsonResponse, writeJsonAnswer } from './json-answer.js';
import { leanEvent } from './lean-event.js';
import { LeanRoutes, type LeanMatch } from './lean-routes.js';
import { newRequestId } from './request-id.js';
import { RateLimiter } from './rate-limit.js';

export interface RequestContext {
  event: H3Event;
  requestId: string;
  /** Set on routes with `auth: true`. */
  principal?: Principal;
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface RouteDefinition extends RouteDoc {
  handler: (ctx: RequestContext) => Promise<Response> | Response;
  /**
   * On an `auth: true` route: what a browser gets instead of the 401 when it sends no
   * `Authorization` and asks for HTML (the permalink opens the web app's issue page).
   */
  browserPage?: (event: H3Event) => Promise<Response> | Response;
  /**
   * Served straight from node:http for its method and path (exact, or with `:name` segments:
   * lean-routes.ts), before h3 and srvx build a
   * web Request for it (see HttpHost.listen): the handler then gets an H3Event-shaped view of
   * the Node request (headers, the body stream, the query, the context: lean-event.ts) and nothing
   * else of h3's, and its JSON answer is written to Node's response by the host (json-answer.ts).
   * For hot ingest routes; what they answer is the same either way, byte for byte.
   */
  lean?: boolean;
}

/** A route of the web app: not part of the API, so neither in the OpenAPI description nor authenticated by key. */
export type PageHandler = (event: H3Event) => Promise<Response> | Response;

export interface HttpHostOptions {
  host: string;
  port: number;
  auth: Authenticator;
  metrics: Metrics;
  logger: Logger;
  /** A limiter to share with another host (the same key's budget across ports). */
  rateLimiter?: RateLimiter;
  rateLimit: { requests_per_second: number; burst: number };
  version: string;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export class HttpHost {
  private readonly app: H3;
  private readonly docs: RouteDoc[] = [];
  private readonly methodsByPath = new Map<string, string[]>();
  /** The lean routes, by method and path. */
  private readonly leanRoutes = new LeanRoutes();
  /** The latency histogram's children for the lean routes, by route and status: their labels are not made per request. */
  private readonly leanDurations = new Map<string, Map<number, (seconds: number) => void>>();
  /** Per-key rate limiting, shared with receivers that serve on their own port. */
  readonly rateLimiter: RateLimiter;
  private server?: Server;
  private boundPort?: number;
  /** False until the service has started and again once it begins to shut down. */
  ready = false;

  constructor(private readonly options: HttpHostOptions) {
    this.rateLimiter = options.rateLimiter ?? new RateLimiter(options.rateLimit.requests_per_second, options.rateLimit.burst);
    this.app = new H3({
      onRequest: (event) => {
        assignRequestId(event);
        event.context.startedAt = performance.now();
      },
      onResponse: (response, event) => {
        const startedAt = event.context.startedAt;
        if (typeof startedAt !== 'number') return; // refused by h3 before onRequest (malformed URL)
        const route = event.context.matchedRoute?.route ?? 'unmatched';
        const seconds = (performance.now() - startedAt) / 1000;
        this.options.metrics.httpRequestDuration.observe({ method: event.req.method, route, status: response.status }, seconds);
      },
      // Unmatched routes and anything h3 itself refuses: still the one error body.
      onError: (error, event) => {
        const id = assignRequestId(event); // h3 may refuse a request (malformed URL) before onRequest
        const apiError =
          error.status === 404
            ? errors.notFound(`no route for ${event.req.method} ${event.url.pathname}`)
            : this.toApiError(error.cause instanceof Error ? error.cause : error);
        return errorResponse(apiError, id);
      },
    });
  }

  get port(): number {
    if (this.boundPort === undefined) throw new Error('the HTTP host is not listening');
    return this.boundPort;
  }

  /** A web app route (GET or POST); the handler answers every outcome itself. */
  page(method: 'GET' | 'POST', path: string, handler: PageHandler): void {
    this.app.on(method, path, handler);
  }

  route(definition: RouteDefinition): void {
    const { handler, browserPage, ...doc } = definition;
    this.docs.push(doc);
    const methods = this.methodsByPath.get(doc.path);
    if (methods) methods.push(doc.method);
    else {
      this.methodsByPath.set(doc.path, [doc.method]);
      // Registered once per path, after the method routes: any other method gets a 405.
      queueMicrotask(() =>
        this.app.all(doc.path, (event) => errorResponse(errors.methodNotAllowed(this.methodsByPath.get(doc.path) ?? []), requestIdOf(event))),
      );
    }
    const handle = async (event: H3Event): Promise<Response> => {
      const requestId = requestIdOf(event);
      try {
        const ctx: RequestContext = {
          event,
          requestId,
          params: decodeParams(event.context.params),
          query: event.url.searchParams,
        };
        if (doc.auth && browserPage && !event.req.headers.has('authorization') && /\btext\/html\b/.test(event.req.headers.get('accept') ?? ''))
          return await browserPage(event);
        if (doc.auth) {
          ctx.principal = await this.options.auth.authenticate(event.req.headers.get('authorization'));
          if (!ctx.principal) throw errors.unauthorized();
          const wait = this.rateLimiter.take(ctx.principal.keyId);
          if (wait > 0) throw errors.rateLimited(wait);
        }
        return await handler(ctx);
      } catch (error) {
        return errorResponse(this.toApiError(error), requestId, bodyLeftUnread(event));
      }
    };
    this.app.on(doc.method, doc.path, handle);
    if (definition.lean) this.leanRoutes.add(doc.method, doc.path, handle);
    if (doc.method === 'GET') {
      // HEAD wherever GET is (RFC 9110): load balancers probe with it.
      this.methodsByPath.get(doc.path)?.push('HEAD');
      this.app.on('HEAD', doc.path, async (event) => {
        const response = await handle(event);
        return new Response(null, { status: response.status, headers: response.headers });
      });
    }
  }

  routes(): readonly RouteDoc[] {
    return this.docs;
  }

  openApi(serverUrl: string): Record<string, unknown> {
    return buildOpenApi(this.docs, serverUrl, this.options.version);
  }

  async listen(): Promise<number> {
    await new Promise((resolve) => queueMicrotask(() => resolve(undefined))); // let the 405 fallbacks register
    this.server = serve({
      fetch: (request) => this.app.fetch(request),
      port: this.options.port,
      hostname: this.options.host,
      silent: true,
      gracefulShutdown: false,
    });
    await this.server.ready();
    // Without a listener Node answers these itself, with neither the error body nor a request id.
    this.server.node?.server?.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => this.refuseUnparsed(error, socket));
    this.routeLeanFirst();
    const address = this.server.node?.server?.address();
    this.boundPort = typeof address === 'object' && address ? address.port : this.options.port;
    return this.boundPort;
  }

  /**
   * Puts the lean routes in front of srvx's request listener: a request whose method and
   * path (before any `?`) name one is served here, every other goes on to srvx and h3 as before.
   * Why: h3 on srvx costs a measurable share of an event's CPU on top of node:http alone
   * (bench/README.md, "Performance history", has the numbers).
   */
  private routeLeanFirst(): void {
    const node = this.server?.node?.server;
    if (!node || this.leanRoutes.size === 0) return;
    const others = node.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
    node.removeAllListeners('request');
    node.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const lean = this.leanRoutes.match(req.method ?? '', path);
      if (lean) void this.serveLean(lean, req, res);
      else for (const listener of others) listener.call(node, req, res);
    });
  }

  /**
   * What h3's hooks and srvx do around a route, for a lean one: request id, latency metric, error
   * body, the answer written. A JSON answer (every answer of the lean routes: `json()` and the
   * error bodies) is written straight to Node's response, byte for byte what srvx would write.
   */
  private async serveLean({ handle, route, params }: LeanMatch, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = performance.now();
    const event = leanEvent(req, res, params);
    let response: Response;
    try {
      response = await handle(event);
    } catch (error) {
      response = errorResponse(this.toApiError(error), requestIdOf(event), bodyLeftUnread(event));
    }
    this.leanDuration(route, req.method ?? '', response.status)((performance.now() - startedAt) / 1000);
    try {
      if (response instanceof JsonResponse && !response.headersHandedOut) writeJsonAnswer(res, response);
      else await sendNodeResponse(res, response);
    } catch (error) {
      this.options.logger.debug({ err: error }, 'could not write the answer');
      res.destroy();
    }
  }

  /** The latency histogram's observer for a lean route's answers of one status (a lean route has one method). */
  private leanDuration(route: string, method: string, status: number): (seconds: number) => void {
    let byStatus = this.leanDurations.get(route);
    if (!byStatus) this.leanDurations.set(route, (byStatus = new Map()));
    let observe = byStatus.get(status);
    if (!observe) byStatus.set(status, (observe = this.options.metrics.httpRequestDuration.labels({ method, route, status }).observe));
    return observe;
  }

  /** Stops accepting connections and waits for the requests in flight to finish. */
  async close(): Promise<void> {
    this.ready = false;
    if (!this.server) return;
    const closing = this.server.close();
    // Keep-alive connections go idle as their last response is written; close them as they do,
    // so a drain takes as long as the slowest request, not the keep-alive timeout.
    const node = this.server.node?.server;
    const sweep = setInterval(() => node && 'closeIdleConnections' in node && node.closeIdleConnections(), 50);
    try {
      await closing;
    } finally {
      clearInterval(sweep);
    }
  }

  /**
   * A request Node's HTTP parser refused (too long a URL or headers, bad framing, an unknown
   * method, a request that timed out): no route sees it, so the answer is written here, on the
   * socket, and the connection closes (the parser cannot go on reading it).
   */
  private refuseUnparsed(error: NodeJS.ErrnoException, socket: Duplex): void {
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy(); // nobody to answer, or an answer already under way
      return;
    }
    const refusal = parserRefusal(error);
    const requestId = newRequestId();
    this.options.metrics.httpUnparsed.inc({ status: refusal.status, code: refusal.code });
    this.options.logger.debug({ err: error, status: refusal.status, request_id: requestId }, 'refused a request the HTTP parser could not read');
    const body = errorBody(refusal, requestId);
    const head = [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
  }

  private toApiError(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof ClientAbortError) {
      // The sender is gone: not a failure of the service, and nobody reads the answer.
      this.options.logger.debug({ err: error }, 'the client closed the connection mid-request');
      return new ApiError(499, 'client_closed_request', error.message);
    }
    if (error instanceof OverloadedError) return errors.overloaded(error.retryAfterSeconds);
    if (error instanceof ShuttingDownError) return errors.unavailable('the service is shutting down; retry against another instance');
    if (error instanceof ExportError) {
      this.options.logger.error({ err: error }, 'export failed');
      return errors.unavailable('storage is unavailable; nothing was stored, retry later', error.retryAfterSeconds);
    }
    if (HTTPError.isError(error) && error.status < 500) return new ApiError(error.status, 'invalid_parameter', error.message);
    this.options.logger.error({ err: error }, 'unhandled error');
    return new ApiError(500, 'internal', 'internal error');
  }
}

/** The request's id: a well-formed incoming X-Request-Id, else a new one. */
function assignRequestId(event: H3Event): string {
  if (typeof event.context.requestId !== 'string') {
    const incoming = event.req.headers.get('x-request-id');
    event.context.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId();
  }
  return event.context.requestId as string;
}

export function requestIdOf(event: H3Event): string {
  return assignRequestId(event);
}

/** `close`: the request's body was not read to its end (see bodyLeftUnread), so the connection cannot be reused. */
export function errorResponse(error: ApiError, requestId: string, close = false): Response {
  return new JsonResponse(errorBody(error, requestId), error.status, {
    'content-type': 'application/json',
    'x-request-id': requestId,
    ...error.headers,
    ...(close && { connection: 'close' }),
  });
}

/** The answer to a request Node's HTTP parser refused (its error's code is llhttp's or Node's). */
function parserRefusal(error: NodeJS.ErrnoException): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(431, 'request_header_fields_too_large', `the request line and headers are larger than ${maxHeaderSize} bytes together`);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError(413, 'payload_too_large', 'the chunk extensions of the body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'the request did not arrive in time');
    default: {
      const reason = (error as { reason?: unknown }).reason;
      return new ApiError(400, 'bad_request', `the request is not valid HTTP/1.1: ${typeof reason === 'string' ? reason : error.message}`);
    }
  }
}

/** A JSON response; `body` may be a ready JSON string (read paths build pages from stored JSON). */
export function json(ctx: RequestContext, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  // srvx's FastResponse: on Node it is written straight to the socket, without building an
  // undici Response per request, a measurable share of the events path's main thread
  // (bench/README.md, "Why the code is shaped this way"); on a lean route, without srvx either.
  return new JsonResponse(typeof body === 'string' ? body : JSON.stringify(body), status, {
    'content-type': 'application/json',
    'x-request-id': ctx.requestId,
    ...headers,
  });
}

export function principalOf(ctx: RequestContext): Principal {
  if (!ctx.principal) throw errors.unauthorized();
  return ctx.principal;
}

function decodeParams(params: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!params) return out;
  for (const [key, value] of Object.entries(params)) {
    try {
      out[key] = decodeURIComponent(value);
    } catch {
      out[key] = value;
    }
  }
  return out;
}
