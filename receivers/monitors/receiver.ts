// The monitors receiver: owns the monitors' tables, serves /v1/monitors and Sentry's HTTP check-in
// route, takes Sentry `check_in` envelope items, and on a timer records missed and timed-out runs
// and runs uptime checks. Failures enter the events pipeline as events of the monitor's issue.
import { readSideOf } from '../../extensions/query/index.js';
import type { Receiver, ReceiverSettings } from '../../src/engine/component.js';
import type { Item, Tenant } from '../../src/engine/item.js';
import { DestinationGuard, systemResolver } from '../../src/net/destinations.js';
import type { CheckinSink } from '../../src/records/checkin.js';
import type { MonitorsConfig } from './config.js';
import { sentryCheckinSchema, sentrySlug, type SentryCheckin } from './input.js';
import { monitorMetrics } from './metrics.js';
import { Monitors } from './monitors.js';
import { probe } from './probe.js';
import { monitorRoutes } from './routes.js';
import { scheduleProblem, type Schedule } from './schedule.js';
import { MonitorBus, takeCheckin } from './bus.js';
import { CheckinLimiter, checkinRateProblem } from './checkin-limit.js';
import { monitorClock } from './clock.js';
import { MONITOR_CHANGE, MonitorStore, type Monitor } from '../../src/storage/monitors.js';
import { alertsOf } from '../../extensions/alerts/index.js';
import { catalogOf } from '../../extensions/catalog/index.js';
import { databaseOf } from '../../extensions/duckdb/index.js';
import { httpServerOf } from '../../src/http/server-extension.js';
import { checkinsOf } from '../../src/records/checkin.js';

const DAY = 86_400_000;
/** Tries to hand a failure event in before it is given up (and logged). */
const EMIT_ATTEMPTS = 3;

export class MonitorsReceiver implements Receiver {
  private timer?: NodeJS.Timeout;
  private retention?: NodeJS.Timeout;
  private monitors?: Monitors;
  private bus?: MonitorBus;

  constructor(private readonly settings: ReceiverSettings<MonitorsConfig>) {}

  async start(): Promise<void> {
    const { host, config, consumers } = this.settings;
    const store = await MonitorStore.open(databaseOf(host));
    const guard = new DestinationGuard({ allowPrivate: config.allow_private_destinations, resolve: systemResolver() });
    const now = () => monitorClock.now();
    const metrics = monitorMetrics(host.metrics.registry);
    const monitors = new Monitors({
      store,
      now,
      // With Kafka, this node decides only for the monitors of the partitions it was given, and tells the others.
      ...(config.kafka && {
        owns: (monitor) => this.bus?.owns(monitor) ?? false,
        changed: (monitor, rows) => this.bus!.sendState(monitor, rows),
      }),
      metrics,
      uptimeConcurrency: config.uptime_concurrency,
      probe: (settings) => probe(settings, { guard, maxRedirects: config.max_redirects }),
      emit: (monitor, event) => this.emit(monitor, event),
      resolveIssue: async (monitor, issueId) => {
        await readSideOf(host)?.issues.setStatus(monitor.dataset, [monitor.project_id], issueId, 'resolved');
        const project = await catalogOf(host).project(monitor.project_id);
        const issue = {
          dataset: monitor.dataset,
          projectId: monitor.project_id,
          id: issueId,
          title: `Monitor failure: ${monitor.slug}`,
          permalink: `${host.settings.app_url}/issues/${issueId}`,
        };
        await alertsOf(host).issueRecovered(issue, { id: monitor.project_id, name: project?.name ?? monitor.project_id });
      },
    });
    this.monitors = monitors;
    // Definitions made on other nodes, through the control plane, when there is one.
    databaseOf(host).journal?.onComponentChange?.(MONITOR_CHANGE, async (change) => {
      const [dataset, projectId, ...slug] = change.id.split('/');
      const tenant = { dataset: dataset === 'test' ? 'test' : 'live', orgId: '', projectId: projectId ?? '' } as const;
      await monitors.serialize(tenant, slug.join('/'), () =>
        store.applyDefinition(change, (local, definition) => monitors.fromDefinition(local, definition, change.at)),
      );
    });
    if (config.kafka) {
      this.bus = new MonitorBus(config.kafka, monitors, host.logger, metrics.partitions);
      await this.bus.start();
    }
    const bus = this.bus;
    const limiter = new CheckinLimiter(config.checkin_rate_per_minute);
    for (const route of monitorRoutes({ catalog: catalogOf(host), monitors, config, guard, now, bus, limiter })) httpServerOf(host).route(route);
    checkinsOf(host).sink = this.sentrySink(monitors, limiter);
    if (!consumers.events) host.logger.warn('the monitors receiver is in no events pipeline: failures are recorded but open no issue');
    // Missed while the service was down: reported once, at the first tick.
    const tick = () => void monitors.tick().catch((error: unknown) => host.logger.error({ err: error }, 'monitors: detection failed'));
    this.timer = setInterval(tick, config.detection_interval_ms);
    this.timer.unref();
    tick();
    // Check-ins and checks are kept as long as events are (service.retention.events_days).
    const { events_days, check_interval_ms } = host.settings.retention;
    const expire = () =>
      void store.expire(Date.now() - events_days * DAY).catch((error: unknown) => host.logger.error({ err: error }, 'monitors: retention failed'));
    this.retention = setInterval(expire, check_interval_ms);
    this.retention.unref();
    expire();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.retention);
    await this.monitors?.tick().catch(() => undefined);
    await this.bus?.shutdown();
  }

  private async emit(monitor: Monitor, event: Record<string, unknown>): Promise<string | undefined> {
    const consumer = this.settings.consumers.events;
    if (!consumer) return undefined;
    const tenant: Tenant = { orgId: monitor.org_id, projectId: monitor.project_id, dataset: monitor.dataset };
    for (let attempt = 1; ; attempt++) {
      const item: Item = { data: event, tenant, receivedAt: Date.now(), size: 2048 };
      try {
        await consumer.consume([item]);
        if (item.outcome) this.settings.host.logger.error({ outcome: item.outcome, monitor: monitor.slug }, 'monitors: a failure event was not taken');
        return (item.data as { issue_id?: string }).issue_id;
      } catch (error) {
        if (attempt >= EMIT_ATTEMPTS) {
          this.settings.host.logger.error({ err: error, monitor: monitor.slug }, 'monitors: a failure event could not be stored');
          return undefined;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  }

  private sentrySink(monitors: Monitors, limiter: CheckinLimiter): CheckinSink {
    return {
      takeSentryCheckin: async (tenant, payload) => {
        const parsed = sentryCheckinSchema.safeParse(payload);
        if (!parsed.success) return { skipped: `not a check-in: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'item'} ${i.message}`).join('; ')}` };
        const checkin = parsed.data;
        const slug = sentrySlug(checkin.monitor_slug);
        // A run's end can arrive before the start that creates its monitor: give the start a moment.
        if (!checkin.monitor_config) await appears(() => monitors.store.get(tenant.dataset, tenant.projectId, slug), ORDERING_WAIT_MS);
        // Counted before its monitor_config may change the monitor (a write too), and only for monitors
        // that exist, so made-up slugs leave nothing behind.
        const limited = (monitor: Monitor) =>
          limiter.take(monitor) > 0 ? { skipped: `rate_limited: ${checkinRateProblem(monitor, this.settings.config.checkin_rate_per_minute)}` } : undefined;
        const existing = monitors.store.get(tenant.dataset, tenant.projectId, slug);
        const refused = existing && limited(existing);
        if (refused) return refused;
        const monitor = await monitors.serialize(tenant, slug, () => this.upsert(monitors, tenant, slug, checkin));
        if (typeof monitor === 'string') return { skipped: monitor };
        const refusedNew = !existing && limited(monitor);
        if (refusedNew) return refusedNew;
        const input = {
          status: checkin.status,
          ...(checkin.check_in_id ? { check_in_id: checkin.check_in_id.replace(/-/g, '') } : {}),
          ...(checkin.duration !== undefined ? { duration_ms: Math.round(checkin.duration * 1000) } : {}),
          ...(checkin.environment ? { environment: checkin.environment } : {}),
        };
        return { checkInId: await takeCheckin(monitors, this.bus, monitor, input, monitorClock.now()) };
      },
    };
  }

  /** The check-in's monitor, created or changed by its monitor_config; or why there is none. */
  private async upsert(monitors: Monitors, tenant: Tenant, slug: string, checkin: SentryCheckin): Promise<Monitor | string> {
    let monitor = monitors.store.get(tenant.dataset, tenant.projectId, slug);
    const config = checkin.monitor_config;
    if (config) {
      const schedule: Schedule = config.schedule.type === 'crontab' ? { type: 'crontab', value: config.schedule.value } : config.schedule;
      const timezone = config.timezone ?? 'UTC';
      const problem = scheduleProblem(schedule, timezone);
      if (problem) return `monitor_config.schedule: ${problem}`;
      const fields = { schedule, timezone, checkin_margin_minutes: config.checkin_margin ?? 1, max_runtime_minutes: config.max_runtime ?? 30 };
      if (!monitor) {
        if (monitors.store.count(tenant.dataset, tenant.projectId) >= this.settings.config.max_monitors_per_project)
          return `the project has ${this.settings.config.max_monitors_per_project} monitors, the most it may have`;
        monitor = await monitors.create(tenant, { type: 'cron', slug, name: checkin.monitor_slug, environment: null, paused: false, ...fields });
      } else if (monitor.cron && changed(monitor, fields)) {
        monitor = await monitors.update(monitor, fields);
      }
    }
    if (!monitor || monitor.type !== 'cron') return `no cron monitor ${slug}: send monitor_config to create it`;
    return monitor;
  }
}

/** How long a check-in for a monitor not yet created waits for the check-in that creates it. */
const ORDERING_WAIT_MS = 2_000;

async function appears(read: () => unknown, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (read() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}

function changed(monitor: Monitor, fields: { schedule: Schedule; timezone: string; checkin_margin_minutes: number; max_runtime_minutes: number }): boolean {
  const cron = monitor.cron!;
  return (
    JSON.stringify(cron.schedule) !== JSON.stringify(fields.schedule) ||
    cron.timezone !== fields.timezone ||
    cron.checkin_margin_minutes !== fields.checkin_margin_minutes ||
    cron.max_runtime_minutes !== fields.max_runtime_minutes
  );
}
