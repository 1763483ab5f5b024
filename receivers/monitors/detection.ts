// What a cron monitor's clock says, as pure functions of the monitor, its open check-ins and now:
// which runs were missed or ran too long, and when the next run is due after a check-in.
import { nextExpected } from './schedule.js';
import type { Checkin, CronSettings, Monitor } from '../../src/storage/monitors.js';

export type CronFailure = { kind: 'missed'; expectedAt: number } | { kind: 'timeout'; checkin: Checkin };

const MINUTE = 60_000;

/**
 * The failures due at `now`: the expected run when its margin has passed with no check-in, and
 * every in_progress check-in older than the maximum runtime.
 */
export function cronFailures(monitor: Monitor, cron: CronSettings, open: Checkin[], now: number): CronFailure[] {
  const failures: CronFailure[] = [];
  const expected = monitor.next_expected_at;
  if (expected !== null && now > expected + cron.checkin_margin_minutes * MINUTE) failures.push({ kind: 'missed', expectedAt: expected });
  for (const checkin of open) if (now - checkin.created_at > cron.max_runtime_minutes * MINUTE) failures.push({ kind: 'timeout', checkin });
  return failures;
}

/**
 * The run expected after one that was missed, judged at `now`: the first one after now, so a
 * monitor missed while the service was down is reported once, not once per slot.
 */
export function nextAfterMissed(cron: CronSettings, now: number): number {
  return nextExpected(cron.schedule, cron.timezone, now);
}

/** A check-in (a run starting or ending) satisfies the expected run: the next is due after it. */
export function nextAfterCheckin(cron: CronSettings, at: number): number {
  return nextExpected(cron.schedule, cron.timezone, at);
}
