// The issues list's "Last 24 h" sparkline: 24 hourly buckets, oldest first, the last one holding
// now, filled from events stored by the real service (DuckDB) at known times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullEvent, startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

const HOUR = 3_600_000;

describe('issue sparkline buckets', () => {
  it('puts each event in the hour it happened, across the whole day', async () => {
    const now = Date.now();
    const hoursAgo = [0, 0, 1, 5, 5, 5, 12, 23, 30];
    let issueId = '';
    for (const [n, ago] of hoursAgo.entries()) {
      const res = await svc.api('/v1/events', {
        method: 'POST',
        body: JSON.stringify(
          fullEvent({ timestamp: new Date(now - ago * HOUR - 60_000).toISOString(), message: `spark ${n}`, exception: { type: 'SparkError', value: 'x' } }),
        ),
      });
      expect(res.status).toBe(202);
      issueId = ((await res.json()) as { permalink: string }).permalink.split('/').pop() as string;
    }
    const counts = (await svc.service.storage!.issueViews.counts('live', 'default', [issueId], 'hour', 24, now)).get(issueId)!;
    expect(counts).toHaveLength(24);
    // Bucket 23 is the current hour; an event a minute before "k hours ago" is in bucket 23 - k, or
    // 23 - k - 1 when that minute crosses an hour boundary.
    const expected = new Array<number>(24).fill(0);
    for (const ago of hoursAgo) {
      const at = now - ago * HOUR - 60_000;
      const bucket = 23 - (Math.floor(now / HOUR) - Math.floor(at / HOUR));
      if (bucket >= 0) expected[bucket]++;
    }
    expect(counts).toEqual(expected);
    expect(counts.filter((n) => n > 0).length).toBeGreaterThanOrEqual(4);
    // The event of 30 hours ago is outside; the one of 23 hours ago too when its minute before
    // crosses into the hour before the window (a run in an hour's first minute).
    const total = counts.reduce((a, b) => a + b, 0);
    expect(total === 8 || (total === 7 && Math.floor(now / HOUR) - Math.floor((now - 23 * HOUR - 60_000) / HOUR) === 24)).toBe(true);
  });
});
