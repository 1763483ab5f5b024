// The running service: opens the database, bootstraps the catalog, builds the pipelines from the
// configuration, serves HTTP and the local admin socket, and shuts all of it down in order.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { AdminServer } from './admin/server.js';
import { Authenticator } from './auth/authenticator.js';
import type { ResolvedConfig } from './config/resolve.js';
import type { Exporter } from './engine/component.js';
import { PipelineGraph } from './engine/graph.js';
import type { Host } from './engine/host.js';
import { HttpHost, json } from './http/host.js';
import { VERSION } from './version.js';
import { Catalog, type CreatedKey } from './storage/catalog.js';
import { Database } from './storage/database.js';
import { RetentionJob } from './storage/retention.js';
import { Storage } from './storage/storage.js';
import { createLogger } from './telemetry/logger.js';
import { Metrics } from './telemetry/metrics.js';

export interface BootstrapResult {
  organizationId: string;
  projectId: string;
  live: CreatedKey;
  test: CreatedKey;
}

export interface StartedService {
  httpPort: number;
  /** Ports of receivers that listen on their own (e.g. otlp), by receiver id. */
  listeners: Record<string, number>;
  /** Set on the first start of a fresh data directory: the keys, shown once. */
  bootstrap?: BootstrapResult;
}

export class Service {
  private graph?: PipelineGraph;
  private retention?: RetentionJob;
  private admin?: AdminServer;
  private starting?: Promise<StartedService>;
  private stopping?: Promise<void>;

  private constructor(
    readonly config: ResolvedConfig,
    readonly host: Host,
  ) {}

  static async open(config: ResolvedConfig, logger: Logger = createLogger(config.settings.log_level)): Promise<Service> {
    const dataDir = resolve(config.settings.data_dir);
    const settings = {
      ...config.settings,
      data_dir: dataDir,
      lake: { path: resolve(dataDir, config.settings.lake.path || 'lake') },
      app_url: config.settings.app_url.replace(/\/+$/, ''),
    };
    const metrics = new Metrics();
    const database = await Database.open(settings.data_dir);
    const catalog = new Catalog(database);
    const auth = new Authenticator(catalog);
    const http = new HttpHost({
      host: settings.http.host,
      port: settings.http.port,
      auth,
      metrics,
      logger,
      rateLimit: settings.limits.rate_limit,
      version: VERSION,
    });
    const host: Host = { logger, metrics, settings, database, storage: new Storage(database, settings), catalog, auth, http, listeners: new Map() };
    return new Service({ ...config, settings }, host);
  }

  start(): Promise<StartedService> {
    this.starting ??= this.startUp();
    return this.starting;
  }

  private async startUp(): Promise<StartedService> {
    const { host } = this;
    const bootstrap = host.settings.auth.bootstrap ? await host.catalog.bootstrap() : undefined;
    this.mountOperationalRoutes();
    this.graph = PipelineGraph.build(this.config, host);
    await this.graph.start();
    this.retention = new RetentionJob(host.database, host.settings.lake.path, host.settings.retention, host.logger);
    this.retention.start();
    const httpPort = await host.http.listen();
    this.admin = new AdminServer(host.catalog, host.logger);
    await this.admin.listen(host.settings.data_dir);
    host.http.ready = true;
    host.logger.info({ port: httpPort, listeners: Object.fromEntries(host.listeners), pipelines: this.config.pipelines.map((p) => p.id), data_dir: host.settings.data_dir }, 'faultline started');
    return {
      httpPort,
      listeners: Object.fromEntries(host.listeners),
      bootstrap: bootstrap && {
        organizationId: bootstrap.organization.id,
        projectId: bootstrap.project.id,
        live: bootstrap.live,
        test: bootstrap.test,
      },
    };
  }

  /** A running exporter by its id, e.g. to flush the parquet exporter on demand. */
  exporter(id: string): Exporter | undefined {
    return this.graph?.exporter(id);
  }

  /** Graceful: readiness drops, listeners stop accepting, pipelines drain, exporters flush, the database closes. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    const { host } = this;
    await this.starting?.catch(() => undefined); // a signal during start-up stops once started
    host.http.ready = false;
    const timeout = new Promise<void>((resolveTimeout) => {
      const timer = setTimeout(() => {
        host.logger.warn({ timeout_ms: host.settings.shutdown_timeout_ms }, 'graceful shutdown timed out');
        resolveTimeout();
      }, host.settings.shutdown_timeout_ms);
      timer.unref();
    });
    const graceful = (async () => {
      await this.admin?.close();
      await host.http.close();
      await this.graph?.shutdown();
      await this.retention?.stop();
    })();
    await Promise.race([graceful, timeout]);
    await host.database.close();
    host.logger.info('faultline stopped');
  }

  private mountOperationalRoutes(): void {
    const { http, metrics } = this.host;
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
      handler: (ctx) => json(ctx, 200, http.openApi(`${this.host.settings.app_url}`)),
    });
  }
}
