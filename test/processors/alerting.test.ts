// The alerting processor's pure parts: buckets and percentiles, what a rule measures and decides,
// backoff, refused destinations, signatures and durations.
import { describe, expect, it } from 'vitest';
import { BucketCounts, DurationBuckets } from '../../processors/alerting/buckets.js';
import { alertingConfigSchema } from '../../processors/alerting/config.js';
import { backoff } from '../../processors/alerting/delivery.js';
import { decide, quietIssueRules } from '../../processors/alerting/evaluator.js';
import { sign, verify } from '../../processors/alerting/signature.js';
import { measure, newWindow } from '../../processors/alerting/windows.js';
import type { LookupAddress } from 'node:dns';
import { DestinationGuard, DestinationRefusedError, isPublicAddress } from '../../src/net/destinations.js';
import { parseDuration, type AlertRuleInput } from '../../src/records/alert-rule.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

function rule(input: Partial<AlertRuleInput> & Pick<AlertRuleInput, 'type' | 'conditions'>, state: Partial<AlertRule> = {}): AlertRule {
  return {
    project_id: 'p',
    name: 'r',
    actions: [{ type: 'log' }],
    environment: null,
    enabled: true,
    frequency: '30m',
    id: 'alr_1',
    dataset: 'live',
    org_id: 'o',
    created_at: T0 - 60 * MINUTE,
    updated_at: T0 - 60 * MINUTE,
    counting_since: T0 - 60 * MINUTE,
    state: 'ok',
    state_changed_at: null,
    last_fired_at: null,
    last_evaluated_at: null,
    last_value: null,
    ...input,
    ...state,
  };
}

describe('buckets', () => {
  it('sum what falls in a window, at bucket resolution, and forget what is pruned', () => {
    const counts = new BucketCounts(1000);
    counts.add(T0 - 61_000);
    counts.add(T0 - 30_000, 2);
    counts.add(T0);
    expect(counts.sum(T0 - 60_000, T0 + 1)).toBe(3);
    expect(counts.sum(T0 - 120_000, T0 - 60_000)).toBe(1);
    counts.prune(T0 - 60_000);
    expect(counts.sum(0, T0 + 1)).toBe(3);
  });

  it('give nearest-rank percentiles within 1%', () => {
    const durations = new DurationBuckets(1000);
    for (let i = 1; i <= 100; i++) durations.add(T0, i * 1000); // 1..100 ms
    for (const p of [50, 90, 99, 99.9]) {
      const { value, samples } = durations.percentile(T0 - 1000, T0 + 1, p);
      expect(samples).toBe(100);
      const exact = Math.ceil(p);
      expect(value).toBeGreaterThanOrEqual(exact);
      expect(value).toBeLessThanOrEqual(exact * 1.01);
    }
    expect(durations.percentile(T0 + 5000, T0 + 6000, 95)).toEqual({ value: null, samples: 0 });
  });
});

describe('what a rule measures', () => {
  it('error_spike: exactly the threshold does not hold, one more does', () => {
    const r = rule({ type: 'error_spike', conditions: { threshold: 3, window: '5m' } });
    const window = newWindow(r);
    if (window.kind !== 'error_spike') throw new Error('spike window expected');
    for (let i = 0; i < 3; i++) window.current.add(T0 - MINUTE);
    expect(measure(r, window, T0)).toMatchObject({ holds: false, value: 3, threshold: 3, unit: 'events' });
    window.current.add(T0);
    expect(measure(r, window, T0)).toMatchObject({ holds: true, value: 4 });
    expect(measure(r, window, T0 + 6 * MINUTE)).toMatchObject({ holds: false, value: 0 });
  });

  it('error_spike: percent increase against the comparison window, scaled to the window', () => {
    const r = rule({ type: 'error_spike', conditions: { percent_increase: 50, window: '10m', comparison_window: '1h' } });
    const window = newWindow(r);
    if (window.kind !== 'error_spike' || !window.baseline) throw new Error('spike window with a baseline expected');
    // 60 events in the hour before the window: 10 expected in 10 minutes.
    for (let i = 0; i < 60; i++) window.baseline.add(T0 - 11 * MINUTE - i * 50_000);
    for (let i = 0; i < 15; i++) window.current.add(T0 - MINUTE);
    expect(measure(r, window, T0)).toMatchObject({ holds: false, value: 50, unit: 'percent' });
    window.current.add(T0);
    expect(measure(r, window, T0)).toMatchObject({ holds: true, value: 60 });
  });

  it('latency: needs min_samples and a percentile above the threshold', () => {
    const r = rule({ type: 'latency', conditions: { service: 's', percentile: 95, threshold_ms: 200, window: '5m', min_samples: 20 } });
    const window = newWindow(r);
    if (window.kind !== 'latency') throw new Error('latency window expected');
    for (let i = 0; i < 19; i++) window.durations.add(T0, 900_000);
    expect(measure(r, window, T0)).toMatchObject({ holds: false, samples: 19 });
    window.durations.add(T0, 900_000);
    expect(measure(r, window, T0)).toMatchObject({ holds: true, samples: 20, unit: 'ms' });
  });
});

describe('what a rule decides', () => {
  const holds = { holds: true, value: 5, threshold: 3, unit: 'events' as const };
  const clear = { ...holds, holds: false, value: 0 };

  it('fires, reminds once per frequency, and resolves when it was notified', () => {
    expect(decide(rule({ type: 'error_spike', conditions: { threshold: 3, window: '5m' } }), holds, T0)).toMatchObject({
      notify: 'firing',
      change: { state: 'firing', fired: true },
    });
    const firing = rule({ type: 'error_spike', conditions: { threshold: 3, window: '5m' } }, { state: 'firing', state_changed_at: T0, last_fired_at: T0 });
    expect(decide(firing, holds, T0 + 10 * MINUTE)).toBeUndefined();
    expect(decide(firing, holds, T0 + 30 * MINUTE)).toMatchObject({ notify: 'firing' });
    expect(decide(firing, clear, T0 + MINUTE)).toMatchObject({ notify: 'resolved', change: { state: 'ok' } });
    expect(decide(rule({ type: 'error_spike', conditions: { threshold: 3, window: '5m' } }), clear, T0)).toBeUndefined();
  });

  it('fires silently within frequency of the last notification, and then resolves silently', () => {
    const recent = rule({ type: 'error_spike', conditions: { threshold: 3, window: '5m' } }, { last_fired_at: T0 - MINUTE, state_changed_at: T0 - 30_000 });
    expect(decide(recent, holds, T0)).toEqual({ change: { ruleId: 'alr_1', state: 'firing', at: T0, fired: false }, notify: undefined });
    const silent = rule(
      { type: 'error_spike', conditions: { threshold: 3, window: '5m' } },
      { state: 'firing', state_changed_at: T0, last_fired_at: T0 - MINUTE },
    );
    expect(decide(silent, clear, T0 + MINUTE)).toMatchObject({ notify: undefined, change: { state: 'ok' } });
  });
});

describe('issue rules after they fire', () => {
  it('stay firing for their frequency after the last firing, then return to ok without a notification', () => {
    const fired = rule({ type: 'new_issue', conditions: {} }, { state: 'firing', state_changed_at: T0, last_fired_at: T0 });
    expect(quietIssueRules([fired], T0 + 29 * MINUTE)).toEqual([]);
    expect(quietIssueRules([fired], T0 + 30 * MINUTE)).toEqual([{ ruleId: 'alr_1', state: 'ok', at: T0 + 30 * MINUTE, fired: false }]);
    expect(quietIssueRules([{ ...fired, state: 'ok' }], T0 + 60 * MINUTE)).toEqual([]);
    expect(quietIssueRules([{ ...fired, frequency: '0s' }], T0)).toHaveLength(1);
  });
});

describe('delivery', () => {
  it('backs off exponentially with jitter, capped, about an hour over the default attempts', () => {
    const config = alertingConfigSchema.parse({}).delivery;
    expect(backoff(config, 1, 0)).toBe(15_000);
    expect(backoff(config, 1, 1)).toBe(30_000);
    expect(backoff(config, 3, 1)).toBe(120_000);
    expect(backoff(config, 20, 1)).toBe(config.max_backoff_ms);
    const longest = Array.from({ length: config.attempts - 1 }, (_, i) => backoff(config, i + 1, 1)).reduce((a, b) => a + b);
    expect(longest / 60_000).toBeGreaterThan(55);
    expect(longest / 60_000).toBeLessThan(65);
  });

  it('takes only public addresses as destinations, IPv4 ranges seen through IPv6 included', () => {
    const notPublic = [
      ...['0.0.0.0', '10.0.0.5', '100.64.0.1', '100.100.100.200', '127.0.0.1', '169.254.169.254', '172.16.0.1', '172.31.255.255'],
      ...['192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.51.100.1', '203.0.113.1', '224.0.0.1', '240.0.0.1', '255.255.255.255'],
      ...['::', '::1', '[::1]', '::127.0.0.1', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd00:ec2::254', 'fec0::1', 'ff02::1', '2001:db8::1', '100::1', '3fff::1'],
      ...['::ffff:169.254.169.254', '::ffff:a00:1', '64:ff9b::10.0.0.1', '64:ff9b::7f00:1', '64:ff9b:1::1', '2002:c0a8:101::1', '2002:7f00:1::', '2001::1'],
      ...['5f00::1', '::ffff:0:a00:1', 'hooks.example.com', '', 'not an address'],
    ];
    for (const address of notPublic) expect(isPublicAddress(address), address).toBe(false);
    const isPublic = ['93.184.215.14', '8.8.8.8', '100.63.255.255', '100.128.0.1', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '[2606:4700::1111]'];
    for (const address of [...isPublic, '::ffff:93.184.215.14', '64:ff9b::5db8:d70e', '2002:5db8:d70e::1'])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it('hands a socket exactly the addresses it checked, and refuses a name with any address that is not public', async () => {
    // The resolver is the test's own: nothing is resolved or connected to.
    const answers: Record<string, string[]> = { 'hooks.example': ['93.184.215.14', '2606:4700::1111'], 'inside.example': ['93.184.215.14', '10.0.0.1'] };
    const guard = new DestinationGuard({ allowPrivate: false, resolve: async (name) => answers[name] ?? [] });
    const lookup = (name: string, options: { all?: boolean; family?: number }) =>
      new Promise<{ error: Error | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
        guard.lookup(name, options, (error, address, family) => resolve({ error, address, family })),
      );
    expect(await lookup('hooks.example', { all: true })).toMatchObject({
      error: null,
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    });
    expect(await lookup('hooks.example', { family: 6 })).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
    expect(await lookup('hooks.example', {})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect((await lookup('inside.example', { all: true })).error).toBeInstanceOf(DestinationRefusedError);
    // Literal addresses are checked before any socket; allow_private_destinations turns every check off.
    expect(() => guard.connectOptions(new URL('http://10.0.0.1/'))).toThrow(DestinationRefusedError);
    expect(guard.connectOptions(new URL('http://93.184.215.14/'))).toEqual({});
    expect(guard.connectOptions(new URL('http://hooks.example/')).lookup).toBe(guard.lookup);
    const open = new DestinationGuard({ allowPrivate: true, resolve: async () => ['10.0.0.1'] });
    expect(open.connectOptions(new URL('http://10.0.0.1/'))).toEqual({});
    expect(await open.refusal(new URL('http://inside.example/'))).toBeUndefined();
  });

  it('signs "<timestamp>.<body>" with HMAC-SHA256 and verifies it within the tolerance', () => {
    const now = 1_800_000_000_000;
    const signature = sign('secret', 1_800_000_000, '{"a":1}');
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verify('secret', { timestamp: '1800000000', signature }, '{"a":1}', 300, now)).toBe(true);
    expect(verify('secret', { timestamp: '1800000000', signature }, '{"a":2}', 300, now)).toBe(false);
    expect(verify('secret', { timestamp: '1800000000', signature }, '{"a":1}', 300, now + 301_000)).toBe(false);
  });
});

describe('durations', () => {
  it('read an integer and a unit', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('5m')).toBe(5 * MINUTE);
    expect(parseDuration('7d')).toBe(7 * 24 * 60 * MINUTE);
    for (const bad of ['5', '1.5h', '5 m', '-1m', 5, null]) expect(parseDuration(bad)).toBeUndefined();
  });
});
