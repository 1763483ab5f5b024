// The running service: opens the database, bootstraps the catalog, builds the pipelines from the
// configuration, serves HTTP and the local admin socket, and shuts all of it down in order.
import type { Logger } from 'pino';
import { AdminServer } from './admin/server.js';
import type { ResolvedConfig } from './config/resolve.js';
import { COMPONENT_KINDS, type Exporter } from './engine/component.js';
import { PipelineGraph } from './engine/graph.js';
import type { Host } from './engine/host.js';
import { ExtensionSet } from './engine/extensions.js';
import { optionalExtension, type Extension } from './engine/extension.js';
import { mountReadApi } from '../frontends/api/index.js';
import { mountOperationalRoutes } from '../frontends/api/operations.js';
import type { Signal } from './engine/item.js';
import { HttpHost } from './http/host.js';
import { HTTP_SERVER_EXTENSION, HttpServerExtension } from './http/server-extension.js';
import { CHECKINS_EXTENSION, CheckinRelay } from './records/checkin.js';
import { VERSION } from './version.js';
import { resolveSettings } from './extension-host.js';
import type { ReadSource } from './engine/read-source.js';
import { sentryIngestOf } from '../extensions/sentry-ingest/index.js';
import { assignmentNotices } from '../extensions/alerts/assignment-notices.js';
import { mailerOf } from './net/mailer.js';
import { RetentionJob, type RetentionTarget } from './storage/retention.js';
import type { ExpiryResult } from './engine/component.js';
import { queryOf, type Storage } from '../extensions/query/index.js';
import { createLogger } from './telemetry/logger.js';
import { Metrics } from './telemetry/metrics.js';
import { alertsOf } from '../extensions/alerts/index.js';
import { artifactsOf } from '../extensions/artifacts/index.js';
import { authenticatorOf, catalogOf, usersOf, type CreatedKey } from '../extensions/catalog/index.js';
import { controlPlaneOf, type ControlPlane } from '../extensions/control-plane/index.js';
import type { ArtifactStore } from '../extensions/artifacts/index.js';
import { databaseOf, DuckdbExtension, PRIVATE_UMASK } from '../extensions/duckdb/index.js';
import { issueStatesOf } from '../extensions/issues/index.js';
import { quarantineOf } from '../extensions/quarantine/index.js';
import { createWebApp } from '../frontends/web/app.js';
import { replaySourceOf } from '../frontends/web/replays.js';

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

/** What the service itself (the read API, the web app, the admin socket, retention) needs running. */
const SERVICE_EXTENSIONS = ['duckdb', 'catalog', 'issues', 'quarantine', 'artifacts', 'alerts', 'query', 'sentry_ingest'];

export class Service {
  private graph?: PipelineGraph;
  /** The read side, once the exporters that serve it have started. */
  storage?: Storage;
  private retention?: RetentionJob;
  private admin?: AdminServer;
  private starting?: Promise<StartedService>;
  private stopping?: Promise<void>;

  private constructor(
    readonly config: ResolvedConfig,
    readonly host: Host,
    private readonly extensions: ExtensionSet,
    private readonly http: HttpServerExtension,
  ) {}

  static async open(config: ResolvedConfig, logger: Logger = createLogger(config.settings.log_level)): Promise<Service> {
    // Everything the service writes (DuckDB, the DocStore, the lake, its socket) is its user's alone.
    process.umask(PRIVATE_UMASK);
    const missing = SERVICE_EXTENSIONS.filter((type) => !config.extensions.some((e) => e.id.text === type));
    if (missing.length)
      throw new Error(
        `the service needs the extension(s) ${missing.join(', ')} (the read API, web app and admin socket use them): list them in service.extensions`,
      );
    const settings = resolveSettings(config.settings);
    const metrics = new Metrics();
    const extensions = new ExtensionSet();
    // Built in: every service has them, so YAML does not list them (see docs/architecture.md).
    const builtIn = new Map<string, Extension>([[CHECKINS_EXTENSION, new CheckinRelay()]]);
    const host: Host = { logger, metrics, settings, extension: (id) => builtIn.get(id) ?? extensions.get(id) };
    await extensions.start(config.extensions, host);
    try {
      alertsOf(host).mailer = mailerOf(settings.smtp, settings.app_url);
      // Components that set up shared state from their config (the alerting processor's rule limits, on any node).
      for (const kind of COMPONENT_KINDS) for (const component of config.components[kind].values()) component.factory.configureHost?.(component.config, host);
      const http = new HttpServerExtension(
        new HttpHost({
          host: settings.http.host,
          port: settings.http.port,
          auth: authenticatorOf(host),
          metrics,
          logger,
          rateLimit: settings.limits.rate_limit,
          version: VERSION,
        }),
      );
      builtIn.set(HTTP_SERVER_EXTENSION, http);
      return new Service({ ...config, settings }, host, extensions, http);
    } catch (error) {
      await extensions.shutdown().catch(() => undefined);
      throw error;
    }
  }

  /** Uploaded source maps and symbol files (the artifacts extension's store). */
  get artifacts(): ArtifactStore {
    return artifactsOf(this.host);
  }

  /** The shared control plane, when the control_plane extension runs with brokers. */
  get controlPlane(): ControlPlane | undefined {
    return controlPlaneOf(this.host);
  }

  start(): Promise<StartedService> {
    this.starting ??= this.startUp();
    return this.starting;
  }

  private async startUp(): Promise<StartedService> {
    const { host } = this;
    const http = this.http.server;
    const database = databaseOf(host);
    const catalog = catalogOf(host);
    const alerts = alertsOf(host);
    const artifacts = this.artifacts;
    mountOperationalRoutes(http, host.metrics, host.settings.app_url);
    const issueStates = issueStatesOf(host);
    await issueStates.redirects.load();
    const graph = (this.graph = PipelineGraph.build(this.config, host));
    await issueStates.ignores.load();
    await graph.start();
    this.storage = queryOf(host).attach(this.readSources(graph));
    this.storage.triage.onAssigned(assignmentNotices(alerts, catalog, host.settings.app_url));
    const users = usersOf(host);
    const web = createWebApp({
      replays: replaySourceOf(this.storage.replays),
      catalog,
      users,
      database,
      alerts,
      artifacts,
      appUrl: host.settings.app_url,
      logger: host.logger,
      web: host.settings.web,
    });
    web.mount(http, this.storage);
    const ingest = sentryIngestOf(host);
    mountReadApi(http, {
      issuePage: web.issuePage,
      catalog,
      storage: this.storage,
      appUrl: host.settings.app_url,
      artifacts,
      alerts,
      limits: host.settings.limits,
      attachments: ingest.attachments,
      releaseHealth: ingest.releaseHealth,
      clientReports: ingest.clientReports,
    });
    // Only what this node writes: a read-only exporter's data (a shared lake) is its writer's to expire.
    const targets: RetentionTarget[] = graph
      .exporters()
      .flatMap(({ id, exporter, readOnly }) => (readOnly || !exporter.expire ? [] : [{ id, expire: exporter.expire.bind(exporter) }]));
    targets.push({
      id: 'artifacts',
      expire: (cutoff) => (cutoff.artifacts ? artifacts.expire(cutoff.artifacts) : Promise.resolve({ deletedRows: {}, deletedPartitions: [] })),
    });
    // Attachments sent with Sentry events go on the day their event goes.
    targets.push({
      id: 'attachments',
      expire: (cutoff) => (cutoff.events ? ingest.expire(cutoff.events) : Promise.resolve({ deletedRows: {}, deletedPartitions: [] })),
    });
    targets.push({
      id: 'alerts',
      expire: async (cutoff): Promise<ExpiryResult> => {
        if (!cutoff.alerts) return { deletedRows: {}, deletedPartitions: [] };
        const { firings, deliveries } = await alerts.outbox.expire(cutoff.alerts);
        return { deletedRows: { alert_firings: firings, alert_deliveries: deliveries }, deletedPartitions: [] };
      },
    });
    this.retention = new RetentionJob(targets, host.settings.retention, host.logger);
    this.retention.start();
    const httpPort = await http.listen();
    this.admin = new AdminServer(catalog, quarantineOf(host), alerts, host.logger, users);
    await this.admin.listen(host.settings.data_dir);
    // Only once every listener is up: keys printed by a start that then failed (a port in use)
    // would never be seen, and the next start would not print them again.
    const bootstrap = host.settings.auth.bootstrap ? await catalog.bootstrap() : undefined;
    http.ready = true;
    for (const warning of this.config.warnings)
      host.logger.warn({ path: warning.path, line: warning.line }, `configuration: ${warning.path}: ${warning.message}`);
    host.logger.info(
      {
        port: httpPort,
        listeners: Object.fromEntries(this.http.listeners),
        pipelines: this.config.pipelines.map((p) => p.id),
        extensions: this.extensions.ids(),
        data_dir: host.settings.data_dir,
      },
      'faultline started',
    );
    return {
      httpPort,
      listeners: Object.fromEntries(this.http.listeners),
      bootstrap: bootstrap && {
        organizationId: bootstrap.organization.id,
        projectId: bootstrap.project.id,
        live: bootstrap.live,
        test: bootstrap.test,
      },
    };
  }

  /** Per signal, the read sources of the exporters service.storage names, in order. */
  private readSources(graph: PipelineGraph): Partial<Record<Signal, ReadSource[]>> {
    const out: Partial<Record<Signal, ReadSource[]>> = {};
    for (const [signal, ids] of Object.entries(this.config.readSources) as Array<[Signal, string[]]>) {
      out[signal] = ids.flatMap((id) => graph.exporter(id)?.readSource?.() ?? []);
    }
    return out;
  }

  /** Runs retention now, optionally with other day counts (operations and tests); the job also runs on its interval. */
  runRetention(override: Record<`${string}_days`, number> = {}, now?: number): ReturnType<RetentionJob['run']> {
    if (!this.retention) throw new Error('the service is not started');
    return this.retention.run(now, override);
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
    const http = this.http.server;
    const duckdb = optionalExtension(host, 'duckdb', DuckdbExtension);
    await this.starting?.catch(() => undefined); // a signal during start-up stops once started
    http.ready = false;
    const timeout = new Promise<void>((resolveTimeout) => {
      const timer = setTimeout(() => {
        host.logger.warn({ timeout_ms: host.settings.shutdown_timeout_ms }, 'graceful shutdown timed out');
        resolveTimeout();
      }, host.settings.shutdown_timeout_ms);
      timer.unref();
    });
    const graceful = (async () => {
      await this.admin?.close();
      await http.close();
      await this.graph?.shutdown();
      await this.retention?.stop();
      // Extensions stop after the pipelines, dependents first (the control plane before the database).
      await this.extensions.shutdown();
    })();
    await Promise.race([graceful, timeout]);
    // The database closes even when the graceful part ran out of time (closing it again is a no-op).
    await duckdb?.shutdown();
    host.logger.info('faultline stopped');
  }
}
