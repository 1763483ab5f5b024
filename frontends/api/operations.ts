// The routes every node serves, whatever its pipelines: liveness, readiness, Prometheus metrics and
// the OpenAPI description of the routes mounted.
import type { HttpHost } from '../../src/http/host.js';
import { json } from '../../src/http/host.js';
import type { Metrics } from '../../src/telemetry/metrics.js';

export function mountOperationalRoutes(http: HttpHost, metrics: Metrics, appUrl: string): void {
  http.route({
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    tag: 'operations',
    auth: false,
    responses: { 200: '{status: "ok"}' },
    handler: (ctx) => json(ctx, 200, { status: 'ok' }),
  });
  http.route({
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness: 200 while taking traffic, 503 while starting or draining',
    tag: 'operations',
    auth: false,
    responses: { 200: '{status: "ready"}', 503: '{status: "unavailable"}' },
    handler: (ctx) => (http.ready ? json(ctx, 200, { status: 'ready' }) : json(ctx, 503, { status: 'unavailable' })),
  });
  http.route({
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics',
    tag: 'operations',
    auth: false,
    responses: { 200: 'Prometheus text format' },
    handler: async (ctx) =>
      new Response(await metrics.registry.metrics(), {
        headers: { 'content-type': metrics.registry.contentType, 'x-request-id': ctx.requestId },
      }),
  });
  http.route({
    method: 'GET',
    path: '/v1/openapi.json',
    summary: 'This API, described in OpenAPI 3.1',
    tag: 'operations',
    auth: false,
    responses: { 200: 'OpenAPI document' },
    handler: (ctx) => json(ctx, 200, http.openApi(appUrl)),
  });
}
