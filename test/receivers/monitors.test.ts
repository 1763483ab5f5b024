// The monitors' clock with a controllable "now", over a real DuckDB file: missed and timed-out
// runs, error check-ins, recovery, uptime thresholds, and what a restart keeps.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Monitors, type MonitorTenant } from '../../receivers/monitors/monitors.js';
import { nextExpected, scheduleProblem } from '../../receivers/monitors/schedule.js';
import { MonitorStore, type Monitor, type UptimeCheck, type UptimeSettings } from '../../src/storage/monitors.js';
import { createMonitorSchema } from '../../receivers/monitors/input.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-27T10:00:30Z');
const tenant: MonitorTenant = { dataset: 'live', orgId: 'org', projectId: 'default' };

describe('schedules', () => {
  it('finds the next run of a crontab in its time zone and of an interval', () => {
    expect(new Date(nextExpected({ type: 'crontab', value: '*/5 * * * *' }, 'UTC', T0)).toISOString()).toBe('2026-11-27T10:05:00.000Z');
    expect(new Date(nextExpected({ type: 'crontab', value: '0 9 * * *' }, 'Europe/Berlin', T0)).toISOString()).toBe('2026-11-28T08:00:00.000Z');
    expect(nextExpected({ type: 'interval', value: 2, unit: 'hour' }, 'UTC', T0)).toBe(T0 + 120 * MINUTE);
  });

  it('refuses what is not a five-field crontab or an IANA time zone', () => {
    expect(scheduleProblem({ type: 'crontab', value: '61 * * * *' }, 'UTC')).toMatch(/minute/);
    expect(scheduleProblem({ type: 'crontab', value: '* * * * * *' }, 'UTC')).toMatch(/five fields/);
    expect(scheduleProblem({ type: 'crontab', value: '0 0 30 2 *' }, 'UTC')).toMatch(/never|day/i);
    expect(scheduleProblem({ type: 'crontab', value: '@daily' }, 'Mars/Olympus')).toMatch(/time zone/);
    expect(scheduleProblem({ type: 'crontab', value: '@daily' }, 'America/New_York')).toBeUndefined();
  });
});

describe('the monitors clock', () => {
  let dir: string;
  let db: Database;
  let now: number;
  let events: Array<{ slug: string; event: Record<string, unknown> }>;
  let resolved: string[];
  let nextCheck: UptimeCheck;

  const open = async () => {
    db = await migratedDatabase(dir, ['catalog', 'alerts']);
    const store = await MonitorStore.open(db);
    return new Monitors({
      store,
      now: () => now,
      emit: async (monitor: Monitor, event) => {
        events.push({ slug: monitor.slug, event });
        return `issue-${monitor.slug}`;
      },
      resolveIssue: async (_monitor, issueId) => {
        resolved.push(issueId);
      },
      probe: async (_settings: UptimeSettings) => ({ ...nextCheck, at: now }),
    });
  };
  const cron = (fields: Record<string, unknown>) => createMonitorSchema.parse({ type: 'cron', ...fields });

  beforeEach(() => {
    dir = tempDir('faultline-monitors-');
    now = T0;
    events = [];
    resolved = [];
    nextCheck = { at: 0, ok: true, status_code: 200, latency_ms: 12, error: null };
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records a missed run once the margin has passed, as an event of the monitor issue, and an ok check-in resolves it', async () => {
    const monitors = await open();
    const monitor = await monitors.create(tenant, cron({ slug: 'nightly', schedule: { type: 'crontab', value: '*/5 * * * *' }, checkin_margin_minutes: 2 }));
    expect(new Date(monitor.next_expected_at!).toISOString()).toBe('2026-11-27T10:05:00.000Z');

    now = Date.parse('2026-11-27T10:06:59Z'); // inside the margin
    await monitors.tick();
    expect(events).toHaveLength(0);

    now = Date.parse('2026-11-27T10:07:01Z');
    await monitors.tick();
    await monitors.tick(); // the same slot is reported once
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toMatchObject({
      level: 'error',
      exception: { type: 'Monitor failure', value: 'nightly' },
      fingerprint: ['monitor', 'cron', 'nightly'],
      tags: { 'monitor.failure': 'missed' },
      contexts: { monitor: { failure: 'missed', expected_at: '2026-11-27T10:05:00.000Z' } },
    });
    const missed = monitors.store.get('live', 'default', 'nightly')!;
    expect(missed).toMatchObject({ status: 'missed', issue_id: 'issue-nightly', consecutive_failures: 1 });
    expect(new Date(missed.next_expected_at!).toISOString()).toBe('2026-11-27T10:10:00.000Z');
    const { checkins } = await monitors.store.checkins(missed, 10);
    expect(checkins).toMatchObject([{ status: 'missed', expected_at: Date.parse('2026-11-27T10:05:00Z') }]);

    now = Date.parse('2026-11-27T10:10:01Z');
    await monitors.checkIn(missed, { status: 'ok' });
    expect(resolved).toEqual(['issue-nightly']);
    expect(monitors.store.get('live', 'default', 'nightly')).toMatchObject({ status: 'ok', consecutive_failures: 0 });
  });

  it('records a run that outlives max_runtime as timed out, and closes a run by its check_in_id', async () => {
    const monitors = await open();
    const monitor = await monitors.create(tenant, cron({ slug: 'etl', schedule: { type: 'interval', value: 1, unit: 'hour' }, max_runtime_minutes: 10 }));
    const started = await monitors.checkIn(monitor, { status: 'in_progress', check_in_id: 'run-1' });
    now += 5 * MINUTE;
    const closed = await monitors.checkIn(monitors.store.get('live', 'default', 'etl')!, { status: 'ok', check_in_id: 'run-1' });
    expect(closed).toMatchObject({ id: started.id, status: 'ok', duration_ms: 5 * MINUTE });

    await monitors.checkIn(monitors.store.get('live', 'default', 'etl')!, { status: 'in_progress', check_in_id: 'run-2' });
    now += 11 * MINUTE;
    await monitors.tick();
    expect(events.map((e) => e.event.tags)).toEqual([expect.objectContaining({ 'monitor.failure': 'timeout' })]);
    expect(monitors.store.get('live', 'default', 'etl')!.status).toBe('timeout');
    expect((await monitors.store.checkin(monitor, 'run-2'))!.status).toBe('timeout');
    await monitors.tick();
    expect(events).toHaveLength(1);
  });

  it('adds an event for every error check-in', async () => {
    const monitors = await open();
    const monitor = await monitors.create(tenant, cron({ slug: 'backup', schedule: { type: 'crontab', value: '@hourly' } }));
    await monitors.checkIn(monitor, { status: 'error', duration_ms: 1200 });
    expect(events).toHaveLength(1);
    expect(events[0]!.event.tags).toMatchObject({ 'monitor.failure': 'error' });
    expect(monitors.store.get('live', 'default', 'backup')!.status).toBe('error');
  });

  it('reports a run missed while the service was down once, after a restart', async () => {
    let monitors = await open();
    await monitors.create(tenant, cron({ slug: 'every-minute', schedule: { type: 'crontab', value: '* * * * *' }, checkin_margin_minutes: 0 }));
    await db.close();

    now = T0 + 30 * MINUTE; // thirty slots later
    monitors = await open();
    expect(monitors.store.get('live', 'default', 'every-minute')).toMatchObject({ status: 'new' });
    await monitors.tick();
    await monitors.tick();
    expect(events).toHaveLength(1);
    expect(monitors.store.get('live', 'default', 'every-minute')!.next_expected_at).toBe(Date.parse('2026-11-27T10:31:00Z'));
  });

  it('does nothing for a paused monitor, and starts its clock again when unpaused', async () => {
    const monitors = await open();
    const monitor = await monitors.create(tenant, cron({ slug: 'paused', schedule: { type: 'crontab', value: '* * * * *' }, paused: true }));
    now += 10 * MINUTE;
    await monitors.tick();
    expect(events).toHaveLength(0);
    const resumed = await monitors.update(monitor, { paused: false });
    expect(resumed.next_expected_at).toBeGreaterThan(now);
  });

  it('turns an uptime monitor down after failure_threshold failed checks and up at the first success', async () => {
    const monitors = await open();
    await monitors.create(
      tenant,
      createMonitorSchema.parse({ type: 'uptime', slug: 'site', url: 'https://shop.example/health', interval_seconds: 60, failure_threshold: 2 }),
    );
    await monitors.tick();
    expect(monitors.store.get('live', 'default', 'site')!.status).toBe('up');

    nextCheck = { at: 0, ok: false, status_code: 503, latency_ms: 40, error: 'http_503' };
    now += 2 * MINUTE;
    await monitors.tick();
    expect(monitors.store.get('live', 'default', 'site')!.status).toBe('up'); // one failure is not down yet
    now += 2 * MINUTE;
    await monitors.tick();
    now += 2 * MINUTE;
    await monitors.tick();
    expect(monitors.store.get('live', 'default', 'site')!).toMatchObject({ status: 'down', consecutive_failures: 3 });
    expect(events).toHaveLength(1);
    expect(events[0]!.event).toMatchObject({ tags: { 'monitor.failure': 'down' }, contexts: { monitor: { status_code: 503, error: 'http_503' } } });

    nextCheck = { at: 0, ok: true, status_code: 200, latency_ms: 10, error: null };
    now += 2 * MINUTE;
    await monitors.tick();
    expect(monitors.store.get('live', 'default', 'site')!.status).toBe('up');
    expect(resolved).toEqual(['issue-site']);

    const site = monitors.store.get('live', 'default', 'site')!;
    expect((await monitors.store.checks(site, 10)).map((c) => c.error)).toEqual([null, 'http_503', 'http_503', 'http_503', null]);
    expect(await monitors.store.uptimeSince(site, 0)).toMatchObject({ uptime: 40 });
  });

  it('expires check-ins and checks older than retention, but never a run still in progress', async () => {
    const monitors = await open();
    const job = await monitors.create(tenant, cron({ slug: 'old-job', schedule: { type: 'crontab', value: '@hourly' } }));
    await monitors.checkIn(job, { status: 'ok' });
    await monitors.checkIn(monitors.store.get('live', 'default', 'old-job')!, { status: 'in_progress', check_in_id: 'long-run' });
    await monitors.create(tenant, createMonitorSchema.parse({ type: 'uptime', slug: 'old-site', url: 'https://shop.example/', interval_seconds: 60 }));
    await monitors.tick();
    now += 100 * 24 * 60 * MINUTE;
    await monitors.checkIn(monitors.store.get('live', 'default', 'old-job')!, { status: 'ok' });

    await monitors.store.expire(now - 90 * 24 * 60 * MINUTE);
    const left = (await monitors.store.checkins(monitors.store.get('live', 'default', 'old-job')!, 10)).checkins;
    expect(left.map((c) => c.status).sort()).toEqual(['in_progress', 'ok']);
    expect(await monitors.store.checks(monitors.store.get('live', 'default', 'old-site')!, 10)).toEqual([]);
  });
});
