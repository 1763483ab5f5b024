// How many check-ins a monitor takes a minute. A check-in costs a DuckDB transaction of its own
// (the check-in's row and the monitor's state), and Sentry's check-in routes are open to anyone
// holding the project's DSN, which ships in every browser bundle: without a bound, one sender
// hammering a slug would keep the database's single writer busy, and the events behind it would
// wait. A cron job checks in once or twice a run, so a few a minute are plenty; Sentry bounds
// them per monitor too. The bound is per monitor, whatever the environment (a sender could make
// up environments without end), and per node: behind several ingest nodes each keeps its own.
import type { Monitor } from '../../src/storage/monitors.js';

/**
 * Beyond this many monitors tracked, the ones whose bucket has refilled (as if never seen) are
 * forgotten, then the longest tracked. Only monitors that exist are counted, which the projects'
 * monitor caps bound already; this bounds the map whatever happens.
 */
const MAX_TRACKED = 10_000;

export class CheckinLimiter {
  /** A token bucket per monitor: `perMinute` tokens at most, refilled evenly over the minute. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    /** Check-ins a monitor takes a minute (0: no bound). */
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** 0 when the monitor takes the check-in now (it is counted); else the seconds until it would. */
  take(monitor: Pick<Monitor, 'dataset' | 'project_id' | 'slug'>): number {
    if (this.perMinute === 0) return 0;
    const key = `${monitor.dataset}\0${monitor.project_id}\0${monitor.slug}`;
    const now = this.now();
    const held = this.buckets.get(key);
    const tokens = held ? this.refilled(held, now) : this.perMinute;
    if (held && tokens < 1) {
      held.tokens = tokens;
      held.at = now;
      return Math.max(1, Math.ceil(((1 - tokens) * 60) / this.perMinute));
    }
    if (!held && this.buckets.size >= MAX_TRACKED) this.forgetRefilled(now);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return 0;
  }

  private refilled(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) * this.perMinute) / 60_000);
  }

  private forgetRefilled(now: number): void {
    for (const [key, bucket] of this.buckets) if (this.refilled(bucket, now) >= this.perMinute) this.buckets.delete(key);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < MAX_TRACKED) break;
      this.buckets.delete(key);
    }
  }
}

/** Why a check-in was refused. */
export function checkinRateProblem(monitor: Pick<Monitor, 'slug'>, perMinute: number): string {
  return `monitor ${monitor.slug} takes at most ${perMinute} check-ins a minute (monitors.checkin_rate_per_minute)`;
}
