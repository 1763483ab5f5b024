// The monitors and their clock: creating and changing monitors, taking check-ins, and on each tick
// recording missed and timed-out runs and running the uptime checks that are due. A failure adds an
// event to the monitor's issue (through the events pipeline, like any error); the next good run
// resolves that issue. Time comes from `now`, so tests can move it.
import type { Dataset } from '../../src/engine/item.js';
import { cronFailures, nextAfterCheckin, nextAfterMissed } from './detection.js';
import { failureEvent, failureEventId, type FailureDetails } from './failure-event.js';
import type { CheckinInput, CreateMonitorInput, PatchMonitorInput } from './input.js';
import type { MonitorMetrics } from './metrics.js';
import type {
  Checkin,
  CheckinInputRow,
  CronSettings,
  Monitor,
  MonitorDefinition,
  MonitorStore,
  UptimeCheck,
  UptimeSettings,
} from '../../src/storage/monitors.js';

export interface MonitorTenant {
  dataset: Dataset;
  orgId: string;
  projectId: string;
}

export interface MonitorsOptions {
  store: MonitorStore;
  metrics?: MonitorMetrics;
  now?: () => number;
  /** Sends a failure event into the events pipeline; resolves with the issue it landed in, when known. */
  emit(monitor: Monitor, event: Record<string, unknown>): Promise<string | undefined>;
  /** Marks the monitor's issue resolved. */
  resolveIssue(monitor: Monitor, issueId: string): Promise<void>;
  /** Runs one uptime check. */
  probe(settings: UptimeSettings): Promise<UptimeCheck>;
  uptimeConcurrency?: number;
  /** Whether this node decides for the monitor (with Kafka: it owns the monitor's partition); default all. */
  owns?(monitor: Monitor): boolean;
  /** After a decision changed a monitor: its state and the check-ins and checks it wrote, for other nodes to follow. */
  changed?(monitor: Monitor, rows: { checkins: Checkin[]; checks: UptimeCheck[] }): Promise<void>;
}

export class Monitors {
  private readonly now: () => number;
  /** Uptime monitors with a check in flight: a slow site does not get a second one at once. */
  private readonly checking = new Set<Monitor>();
  /** One tick at a time. */
  private ticking?: Promise<void>;
  /** Work on one monitor, one piece at a time (check-ins of one job may arrive at once). */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly options: MonitorsOptions) {
    this.now = options.now ?? Date.now;
  }

  get store(): MonitorStore {
    return this.options.store;
  }

  /** Runs `work` after every earlier piece of work on the same monitor has finished. */
  serialize<T>(tenant: MonitorTenant, slug: string, work: () => Promise<T>): Promise<T> {
    const key = `${tenant.dataset}\u0000${tenant.projectId}\u0000${slug}`;
    const previous = this.queues.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return result;
  }

  async create(tenant: MonitorTenant, input: CreateMonitorInput): Promise<Monitor> {
    const now = this.now();
    const monitor: Monitor = {
      dataset: tenant.dataset,
      org_id: tenant.orgId,
      project_id: tenant.projectId,
      slug: input.slug,
      name: input.name ?? input.slug,
      type: input.type,
      environment: input.environment,
      cron: input.type === 'cron' ? cronSettings(input) : null,
      uptime: input.type === 'uptime' ? uptimeSettings(input) : null,
      paused: input.paused,
      status: 'new',
      last_checkin_at: null,
      next_expected_at: null,
      consecutive_failures: 0,
      issue_id: null,
      created_at: now,
      updated_at: now,
    };
    monitor.next_expected_at = this.firstExpected(monitor, now);
    await this.store.define(monitor);
    return monitor;
  }

  async update(monitor: Monitor, patch: PatchMonitorInput): Promise<Monitor> {
    const now = this.now();
    const next: Monitor = { ...monitor, updated_at: now };
    if (patch.name !== undefined) next.name = patch.name;
    if (patch.environment !== undefined) next.environment = patch.environment;
    if (patch.paused !== undefined) next.paused = patch.paused;
    if (next.cron) {
      next.cron = {
        schedule: patch.schedule ?? next.cron.schedule,
        checkin_margin_minutes: patch.checkin_margin_minutes ?? next.cron.checkin_margin_minutes,
        max_runtime_minutes: patch.max_runtime_minutes ?? next.cron.max_runtime_minutes,
        timezone: patch.timezone ?? next.cron.timezone,
      };
    }
    if (next.uptime) {
      const u = next.uptime;
      next.uptime = {
        url: patch.url ?? u.url,
        method: patch.method ?? u.method,
        interval_seconds: patch.interval_seconds ?? u.interval_seconds,
        timeout_ms: patch.timeout_ms ?? u.timeout_ms,
        expected_status: patch.expected_status ?? u.expected_status,
        headers: patch.headers ?? u.headers,
        body: patch.body !== undefined ? patch.body : u.body,
        failure_threshold: patch.failure_threshold ?? u.failure_threshold,
      };
    }
    next.next_expected_at = this.expectedAfterChange(monitor, next, now);
    await this.store.define(next);
    return next;
  }

  /** A schedule change, or the end of a pause, starts the clock again from `at`; nothing else moves it. */
  expectedAfterChange(before: Monitor, after: Monitor, at: number): number | null {
    const restarted =
      JSON.stringify(before.cron?.schedule) !== JSON.stringify(after.cron?.schedule) ||
      before.cron?.timezone !== after.cron?.timezone ||
      before.uptime?.interval_seconds !== after.uptime?.interval_seconds ||
      (before.paused && !after.paused);
    return restarted ? this.firstExpected(after, at) : before.next_expected_at;
  }

  /** A monitor as a definition from another node makes it: a new one starts its clock when it was created. */
  fromDefinition(local: Monitor | undefined, definition: MonitorDefinition, at: number): Monitor {
    if (!local) {
      const monitor: Monitor = {
        ...definition,
        status: 'new',
        last_checkin_at: null,
        next_expected_at: null,
        consecutive_failures: 0,
        issue_id: null,
        updated_at: at,
      };
      monitor.next_expected_at = this.firstExpected(monitor, definition.created_at);
      return monitor;
    }
    const next: Monitor = { ...local, ...definition, updated_at: Math.max(local.updated_at, at) };
    next.next_expected_at = this.expectedAfterChange(local, next, at);
    return next;
  }

  /**
   * A check-in: opens a run (in_progress, or a one-shot ok/error), or closes the open run with the
   * same id. `at`: when it was received, if not now (a check-in that came through Kafka).
   */
  checkIn(monitor: Monitor, input: CheckinInput, at?: number): Promise<Checkin> {
    const tenant = { dataset: monitor.dataset, orgId: monitor.org_id, projectId: monitor.project_id };
    return this.serialize(tenant, monitor.slug, async () => {
      const checkin = await this.applyCheckin(this.store.get(monitor.dataset, monitor.project_id, monitor.slug) ?? monitor, input, at ?? this.now());
      await this.published(monitor, [checkin], []);
      return checkin;
    });
  }

  private async published(monitor: Monitor, checkins: Checkin[], checks: UptimeCheck[]): Promise<void> {
    const latest = this.store.get(monitor.dataset, monitor.project_id, monitor.slug);
    if (latest && this.options.changed) await this.options.changed(latest, { checkins, checks });
  }

  private async applyCheckin(monitor: Monitor, input: CheckinInput, now: number): Promise<Checkin> {
    const cron = requireCron(monitor);
    this.options.metrics?.checkins.inc({ status: input.status });
    const existing = input.check_in_id ? await this.store.checkin(monitor, input.check_in_id) : undefined;
    const next: Monitor = { ...monitor, last_checkin_at: now, updated_at: now };
    if (existing && existing.status !== 'in_progress' && input.status === 'in_progress') {
      // The run's end arrived before its start (the SDK sends both at once): the end stands.
      return existing;
    }
    let row: CheckinInputRow;
    if (existing) {
      // Closing a run: its duration is the time since it opened unless the sender measured it.
      const duration = input.duration_ms ?? (input.status === 'in_progress' ? null : now - existing.created_at);
      row = { ...existing, status: input.status, duration_ms: duration, updated_at: now };
    } else {
      row = {
        id: input.check_in_id,
        status: input.status,
        duration_ms: input.duration_ms ?? null,
        environment: input.environment ?? monitor.environment,
        created_at: now,
      };
      next.next_expected_at = nextAfterCheckin(cron, now);
    }
    if (input.status === 'ok') {
      next.status = 'ok';
      next.consecutive_failures = 0;
    } else if (input.status === 'error') {
      next.status = 'error';
      next.consecutive_failures = monitor.consecutive_failures + 1;
    }
    const checkin = await this.store.saveWithCheckin(next, row);
    if (input.status === 'ok' && monitor.status !== 'ok' && monitor.status !== 'new') await this.recovered(next);
    if (input.status === 'error') await this.failed(next, { kind: 'error', at: now, ref: checkin.id });
    return checkin;
  }

  /** Records what is due at now: missed and timed-out runs, and uptime checks (started, not awaited past the tick). */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async runTick(): Promise<void> {
    const now = this.now();
    const uptime: Monitor[] = [];
    for (const monitor of this.store.all()) {
      if (monitor.paused || (this.options.owns && !this.options.owns(monitor))) continue;
      if (monitor.cron) {
        const tenant = { dataset: monitor.dataset, orgId: monitor.org_id, projectId: monitor.project_id };
        await this.serialize(tenant, monitor.slug, async () => {
          const latest = this.store.get(monitor.dataset, monitor.project_id, monitor.slug);
          if (latest?.cron && !latest.paused) await this.detectCron(latest, latest.cron, now);
        });
      } else if (monitor.uptime && monitor.next_expected_at !== null && monitor.next_expected_at <= now && !this.checking.has(monitor)) uptime.push(monitor);
    }
    await this.runChecks(uptime);
  }

  private async detectCron(monitor: Monitor, cron: CronSettings, now: number): Promise<void> {
    const open = await this.store.openCheckins(monitor);
    let current = monitor;
    const written: Checkin[] = [];
    for (const failure of cronFailures(monitor, cron, open, now)) {
      if (failure.kind === 'missed') {
        // Its id derives from the run it stands for: recorded twice (two deciding nodes), it is one row.
        const id = failureEventId(current, 'missed', String(failure.expectedAt)).replace(/-/g, '');
        written.push(
          await this.store.putCheckin(current, { id, status: 'missed', expected_at: failure.expectedAt, environment: current.environment, created_at: now }),
        );
        current = {
          ...current,
          status: 'missed',
          next_expected_at: nextAfterMissed(cron, now),
          consecutive_failures: current.consecutive_failures + 1,
          updated_at: now,
        };
        await this.store.save(current);
        await this.failed(current, { kind: 'missed', at: now, expectedAt: failure.expectedAt, ref: String(failure.expectedAt) });
      } else {
        written.push(await this.store.putCheckin(current, { ...failure.checkin, status: 'timeout', expected_at: failure.checkin.created_at, updated_at: now }));
        current = { ...this.store.get(current.dataset, current.project_id, current.slug)!, status: 'timeout', updated_at: now };
        current.consecutive_failures++;
        await this.store.save(current);
        await this.failed(current, { kind: 'timeout', at: now, expectedAt: failure.checkin.created_at, ref: failure.checkin.id });
      }
    }
    if (written.length) await this.published(current, written, []);
  }

  private async runChecks(due: Monitor[]): Promise<void> {
    const limit = this.options.uptimeConcurrency ?? 8;
    let index = 0;
    const worker = async () => {
      while (index < due.length) {
        const monitor = due[index++]!;
        this.checking.add(monitor);
        try {
          await this.check(monitor);
        } finally {
          this.checking.delete(monitor);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, due.length) }, worker));
  }

  /** One uptime check of the monitor, recorded, with the transitions it causes. */
  async check(monitor: Monitor): Promise<UptimeCheck> {
    const settings = monitor.uptime!;
    const result = await this.options.probe(settings);
    this.options.metrics?.checks.inc({ result: result.ok ? 'ok' : (result.error ?? 'failed') });
    // Re-read: the monitor may have changed (or gone) while the check ran.
    const latest = this.store.get(monitor.dataset, monitor.project_id, monitor.slug);
    if (!latest) return result;
    const now = this.now();
    // Jitter of up to a tenth of the interval spreads monitors created together.
    const interval = settings.interval_seconds * 1000;
    const next: Monitor = {
      ...latest,
      last_checkin_at: result.at,
      next_expected_at: now + interval + Math.floor(Math.random() * interval * 0.1),
      updated_at: now,
    };
    if (result.ok) {
      next.consecutive_failures = 0;
      next.status = 'up';
      if (latest.status === 'up' && latest.consecutive_failures === 0) await this.store.addRoutineCheck(next, result);
      else await this.store.save(next, result);
      if (latest.status === 'down') await this.recovered(next);
    } else {
      next.consecutive_failures = latest.consecutive_failures + 1;
      const down = next.consecutive_failures >= settings.failure_threshold;
      if (down) next.status = 'down';
      await this.store.save(next, result);
      if (down && latest.status !== 'down') {
        await this.failed(next, {
          kind: 'down',
          at: now,
          check: { status_code: result.status_code, error: result.error, latency_ms: result.latency_ms },
          ref: String(result.at),
        });
      }
    }
    await this.published(latest, [], [result]);
    return result;
  }

  private async failed(monitor: Monitor, details: FailureDetails): Promise<void> {
    this.options.metrics?.failures.inc({ kind: details.kind });
    const issueId = await this.options.emit(monitor, failureEvent(monitor, details));
    if (issueId && issueId !== monitor.issue_id) {
      const latest = this.store.get(monitor.dataset, monitor.project_id, monitor.slug) ?? monitor;
      await this.store.save({ ...latest, issue_id: issueId });
    }
  }

  private async recovered(monitor: Monitor): Promise<void> {
    if (monitor.issue_id) await this.options.resolveIssue(monitor, monitor.issue_id);
  }

  private firstExpected(monitor: Monitor, now: number): number | null {
    if (monitor.cron) return nextAfterCheckin(monitor.cron, now);
    if (monitor.uptime) return now;
    return null;
  }
}

function requireCron(monitor: Monitor): CronSettings {
  if (!monitor.cron) throw new Error(`monitor ${monitor.slug} is not a cron monitor`);
  return monitor.cron;
}

function cronSettings(input: Extract<CreateMonitorInput, { type: 'cron' }>): CronSettings {
  return {
    schedule: input.schedule,
    checkin_margin_minutes: input.checkin_margin_minutes,
    max_runtime_minutes: input.max_runtime_minutes,
    timezone: input.timezone,
  };
}

function uptimeSettings(input: Extract<CreateMonitorInput, { type: 'uptime' }>): UptimeSettings {
  return {
    url: input.url,
    method: input.method,
    interval_seconds: input.interval_seconds,
    timeout_ms: input.timeout_ms,
    expected_status: input.expected_status,
    headers: input.headers,
    body: input.body,
    failure_threshold: input.failure_threshold,
  };
}
