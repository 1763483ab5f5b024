// The running service: opens the database, bootstraps the catalog, builds the pipelines from the
// configuration, serves HTTP and the local admin socket, and shuts all of it down in order.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { AdminServer } from './admin/server.js';
import { Authenticator } from './auth/authenticator.js';
import type { ResolvedConfig } from './config/resolve.js';
import { COMPONENT_KINDS, type Exporter } from './engine/component.js';
import { PipelineGraph } from './engine/graph.js';
import type { Host } from './engine/host.js';
import { mountReadApi } from '../frontends/api/index.js';
import { mountOperationalRoutes } from '../frontends/api/operations.js';
import type { Signal } from './engine/item.js';
import { HttpHost } from './http/host.js';
import { VERSION } from './version.js';
import { ControlPlane } from '../extensions/control-plane/control-plane.js';
import { Catalog, type CreatedKey } from '../extensions/catalog/catalog.js';
import { Database } from '../extensions/duckdb/database.js';
import { GroupingVersions } from '../extensions/issues/grouping-versions.js';
import { IssueStates } from '../extensions/issues/issue-states.js';
import { PRIVATE_UMASK } from '../extensions/duckdb/private-files.js';
import { Quarantine } from '../extensions/quarantine/quarantine.js';
import type { ReadSource } from './engine/read-source.js';
import { Alerts } from '../extensions/alerts/alerts.js';
import { ArtifactStore } from '../extensions/artifacts/artifacts.js';
import { sentryIngestExtensionFactory, sentryIngestOf } from '../extensions/sentry-ingest/index.js';
import { RetentionJob, type RetentionTarget } from './storage/retention.js';
import type { ExpiryResult } from './engine/component.js';
import { queryExtensionFactory, queryOf, type Storage } from '../extensions/query/index.js';
import type { Extension } from './engine/extension.js';
import { createLogger } from './telemetry/logger.js';
import { Metrics } from './telemetry/metrics.js';
import { Users } from '../extensions/catalog/users.js';
import { createWebApp } from '../frontends/web/app.js';
import { replaySourceOf } from '../frontends/web/replays.js';
import { assignmentNotices } from '../extensions/alerts/assignment-notices.js';
import { mailerOf } from './net/mailer.js';

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
  /** The read side, once the exporters that serve it have started. */
  storage?: Storage;
  private retention?: RetentionJob;
  private admin?: AdminServer;
  /** The web app's users and sessions. */
  private users?: Users;
  /** The shared control plane, when service.control_plane.brokers is set. */
  controlPlane?: ControlPlane;
  private starting?: Promise<StartedService>;
  private stopping?: Promise<void>;

  private constructor(
    readonly config: ResolvedConfig,
    readonly host: Host,
    /** Uploaded source maps and symbol files (host.artifacts, with what the upload API needs besides lookups). */
    readonly artifacts: ArtifactStore,
  ) {}

  static async open(config: ResolvedConfig, logger: Logger = createLogger(config.settings.log_level)): Promise<Service> {
    // Everything the service writes (DuckDB, the DocStore, the lake, its socket) is its user's alone.
    process.umask(PRIVATE_UMASK);
    const dataDir = resolve(config.settings.data_dir);
    const settings = {
      ...config.settings,
      data_dir: dataDir,
      artifacts: { path: resolve(dataDir, config.settings.artifacts.path || 'artifacts') },
      app_url: config.settings.app_url.replace(/\/+$/, ''),
    };
    const metrics = new Metrics();
    const database = await Database.open(settings.data_dir);
    const shared = settings.control_plane.brokers.trim() !== '';
    // With a shared control plane projects are created on any node: ingest ids are hashed, not max + 1.
    const catalog = new Catalog(database, shared ? 'hashed' : 'sequential');
    const auth = new Authenticator(catalog);
    // With a shared control plane, other nodes share the artifacts path (see src/storage/artifacts.ts).
    const artifacts = new ArtifactStore(database, settings.artifacts.path, shared);
    const alerts = new Alerts(database);
    alerts.mailer = mailerOf(settings.smtp, settings.app_url);
    await alerts.rules.load();
    const http = new HttpHost({
      host: settings.http.host,
      port: settings.http.port,
      auth,
      metrics,
      logger,
      rateLimit: settings.limits.rate_limit,
      version: VERSION,
    });
    // The extensions this node runs, by id (the query layer; the others are still the host's fields).
    const extensions = new Map<string, Extension>();
    const host: Host = {
      logger,
      metrics,
      settings,
      database,
      catalog,
      issueStates: new IssueStates(database),
      groupingVersions: new GroupingVersions(database),
      quarantine: new Quarantine(database, metrics),
      artifacts,
      alerts,
      auth,
      http,
      listeners: new Map(),
      extension: (id) => extensions.get(id),
    };
    // Until extensions are declared in YAML (issue #24), these are created from their factories here.
    for (const factory of [queryExtensionFactory, sentryIngestExtensionFactory]) {
      const extension = factory.create({ id: { type: factory.type, text: factory.type }, config: factory.defaultConfig(), host });
      await extension.start?.();
      extensions.set(factory.type, extension);
    }
    for (const kind of COMPONENT_KINDS) for (const component of config.components[kind].values()) component.factory.configureHost?.(component.config, host);
    return new Service({ ...config, settings }, host, artifacts);
  }

  start(): Promise<StartedService> {
    this.starting ??= this.startUp();
    return this.starting;
  }

  private async startUp(): Promise<StartedService> {
    const { host } = this;
    const brokers = host.settings.control_plane.brokers
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean);
    await host.issueStates.redirects.load();
    if (brokers.length) {
      this.controlPlane = new ControlPlane(
        { brokers, topic: host.settings.control_plane.topic },
        { database: host.database, catalog: host.catalog, issueStates: host.issueStates, alertRules: host.alerts.rules, artifacts: this.artifacts },
        host.logger,
      );
      await this.controlPlane.start();
    }
    mountOperationalRoutes(host.http, host.metrics, host.settings.app_url);
    const swept = await this.artifacts.start();
    if (swept > 0) host.logger.info({ files: swept, path: this.artifacts.dir }, 'removed artifact files no bundle refers to (left by a crash)');
    const graph = (this.graph = PipelineGraph.build(this.config, host));
    await host.issueStates.ignores.load();
    await graph.start();
    this.storage = queryOf(host).attach(this.readSources(graph));
    this.users = new Users(host.database);
    this.storage.triage.onAssigned(assignmentNotices(host.alerts, host.catalog, host.settings.app_url));
    const web = createWebApp({
      replays: replaySourceOf(this.storage.replays),
      catalog: host.catalog,
      users: this.users,
      database: host.database,
      alerts: host.alerts,
      artifacts: this.artifacts,
      appUrl: host.settings.app_url,
      logger: host.logger,
      web: host.settings.web,
    });
    web.mount(host.http, this.storage);
    const ingest = sentryIngestOf(host);
    mountReadApi(host.http, {
      issuePage: web.issuePage,
      catalog: host.catalog,
      storage: this.storage,
      appUrl: host.settings.app_url,
      artifacts: this.artifacts,
      alerts: host.alerts,
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
      expire: (cutoff) => (cutoff.artifacts ? this.artifacts.expire(cutoff.artifacts) : Promise.resolve({ deletedRows: {}, deletedPartitions: [] })),
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
        const { firings, deliveries } = await host.alerts.outbox.expire(cutoff.alerts);
        return { deletedRows: { alert_firings: firings, alert_deliveries: deliveries }, deletedPartitions: [] };
      },
    });
    this.retention = new RetentionJob(targets, host.settings.retention, host.logger);
    this.retention.start();
    const httpPort = await host.http.listen();
    this.admin = new AdminServer(host.catalog, host.quarantine, host.alerts, host.logger, this.users);
    await this.admin.listen(host.settings.data_dir);
    // Only once every listener is up: keys printed by a start that then failed (a port in use)
    // would never be seen, and the next start would not print them again.
    const bootstrap = host.settings.auth.bootstrap ? await host.catalog.bootstrap() : undefined;
    host.http.ready = true;
    for (const warning of this.config.warnings)
      host.logger.warn({ path: warning.path, line: warning.line }, `configuration: ${warning.path}: ${warning.message}`);
    host.logger.info(
      { port: httpPort, listeners: Object.fromEntries(host.listeners), pipelines: this.config.pipelines.map((p) => p.id), data_dir: host.settings.data_dir },
      'faultline started',
    );
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
      await this.controlPlane?.shutdown();
    })();
    await Promise.race([graceful, timeout]);
    await host.database.close();
    host.logger.info('faultline stopped');
  }
}
