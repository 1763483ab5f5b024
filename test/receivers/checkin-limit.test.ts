// The per-monitor bound on check-ins (receivers/monitors/checkin-limit.ts), on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { CheckinLimiter } from '../../receivers/monitors/checkin-limit.js';

const monitor = (slug: string) => ({ dataset: 'live' as const, project_id: 'default', slug });

describe('CheckinLimiter', () => {
  it('takes a burst of the rate, then one per share of the minute, and says how long to wait', () => {
    let now = 1_000_000;
    const limiter = new CheckinLimiter(6, () => now);
    for (let i = 0; i < 6; i++) expect(limiter.take(monitor('job'))).toBe(0);
    expect(limiter.take(monitor('job'))).toBe(10); // one check-in comes back every 10 s
    now += 5_000;
    expect(limiter.take(monitor('job'))).toBe(5);
    now += 5_000;
    expect(limiter.take(monitor('job'))).toBe(0);
    expect(limiter.take(monitor('job'))).toBeGreaterThan(0);
  });

  it('counts each monitor apart, and a refused check-in does not use up the next', () => {
    let now = 0;
    const limiter = new CheckinLimiter(2, () => now);
    expect([limiter.take(monitor('a')), limiter.take(monitor('a')), limiter.take(monitor('a'))]).toEqual([0, 0, 30]);
    expect(limiter.take(monitor('b'))).toBe(0);
    expect(limiter.take({ ...monitor('a'), project_id: 'other' })).toBe(0);
    for (let i = 0; i < 5; i++) limiter.take(monitor('a'));
    now += 30_000;
    expect(limiter.take(monitor('a'))).toBe(0);
  });

  it('refills to the burst and no further, and 0 means no bound', () => {
    let now = 0;
    const limiter = new CheckinLimiter(3, () => now);
    limiter.take(monitor('a'));
    now += 3_600_000;
    expect([0, 1, 2, 3].map(() => limiter.take(monitor('a')))).toEqual([0, 0, 0, 20]);
    const open = new CheckinLimiter(0, () => now);
    for (let i = 0; i < 1000; i++) expect(open.take(monitor('a'))).toBe(0);
  });
});
