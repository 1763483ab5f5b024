// When a cron monitor expects its next run: a crontab expression in the monitor's time zone
// (croner), or a fixed interval after the last run.
import { Cron } from 'croner';
import type { IntervalUnit, Schedule } from '../../src/records/schedule.js';

export type { IntervalUnit, Schedule };

const UNIT_MS: Record<IntervalUnit, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Five fields (minute to weekday) of digits and `* , - /`, or a name like `@hourly`: nothing croner would read as seconds or years. */
const CRONTAB = /^(@(yearly|annually|monthly|weekly|daily|hourly)|[\d*,/-]+( [\d*,/A-Za-z-]+){4})$/;

/** Why a schedule cannot be used, or undefined. `timezone` must be an IANA name. */
export function scheduleProblem(schedule: Schedule, timezone: string): string | undefined {
  if (!isTimeZone(timezone)) return `timezone ${JSON.stringify(timezone)} is not an IANA time zone`;
  if (schedule.type === 'interval') return undefined;
  const value = schedule.value.trim();
  if (value.length > 100 || !CRONTAB.test(value))
    return 'must be a crontab expression of five fields (minute hour day-of-month month day-of-week) or @hourly, @daily, …';
  try {
    if (!new Cron(value, { timezone, paused: true }).nextRun()) return 'never matches a time';
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** The first expected run strictly after `after` (ms). */
export function nextExpected(schedule: Schedule, timezone: string, after: number): number {
  if (schedule.type === 'interval') return after + schedule.value * UNIT_MS[schedule.unit];
  const next = new Cron(schedule.value.trim(), { timezone, paused: true }).nextRun(new Date(after));
  // scheduleProblem refused expressions that never match; a far-future guard all the same.
  return next ? next.getTime() : after + 366 * UNIT_MS.day;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
