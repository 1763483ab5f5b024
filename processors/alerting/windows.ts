// The windows of the counting rules (error_spike, latency): one per rule, fed per item on the hot
// path, measured by the evaluator, and rebuilt after a restart from the stored events and spans
// (received before this process started), counted by the query layer (extensions/query).
import { parseDuration, windowMs, type LatencyConditions, type SpikeConditions } from '../../src/records/alert-rule.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import type { AlertRule } from '../../extensions/alerts/alert-rules.js';
import type { WindowCounts } from '../../extensions/query/index.js';
import { BucketCounts, DURATION_LOG_STEP, DurationBuckets } from './buckets.js';

/** Buckets per window: a window's edge is known within 1/60 of its length. */
const BUCKETS_PER_WINDOW = 60;
const MIN_BUCKET_MS = 1000;

export interface Measurement {
  holds: boolean;
  value: number | null;
  threshold: number;
  unit: 'events' | 'percent' | 'ms';
  /** Latency: spans in the window. */
  samples?: number;
}

export interface SpikeWindow {
  kind: 'error_spike';
  /** counting_since of the rule it was made for: a change of conditions starts a new window. */
  since: number;
  current: BucketCounts;
  /** percent_increase: the comparison window, in coarser buckets. */
  baseline?: BucketCounts;
  /** The last matching event, for the notification. */
  lastEvent?: ErrorEvent;
}

export interface LatencyWindow {
  kind: 'latency';
  since: number;
  durations: DurationBuckets;
}

export type RuleWindow = SpikeWindow | LatencyWindow;

function bucketMs(span: number): number {
  return Math.max(MIN_BUCKET_MS, Math.floor(span / BUCKETS_PER_WINDOW));
}

export function newWindow(rule: AlertRule): RuleWindow {
  const window = windowMs(rule);
  if (rule.type === 'latency') return { kind: 'latency', since: rule.counting_since, durations: new DurationBuckets(bucketMs(window)) };
  const c = rule.conditions as SpikeConditions;
  const comparison = parseDuration(c.comparison_window);
  return {
    kind: 'error_spike',
    since: rule.counting_since,
    current: new BucketCounts(bucketMs(window)),
    baseline: comparison === undefined ? undefined : new BucketCounts(bucketMs(comparison)),
  };
}

/** Whether an event counts for an error_spike rule. */
export function eventMatches(rule: AlertRule, event: ErrorEvent): boolean {
  const c = rule.conditions as SpikeConditions;
  if (rule.environment !== null && event.environment !== rule.environment) return false;
  if (c.issue_id !== undefined && event.issue_id !== c.issue_id) return false;
  if (c.level !== undefined && event.level !== c.level) return false;
  if (c.tags) for (const key in c.tags) if (event.tags?.[key] !== c.tags[key]) return false;
  return true;
}

/** Whether a span counts for a latency rule. */
export function spanMatches(rule: AlertRule, span: Span): boolean {
  const c = rule.conditions as LatencyConditions;
  return span.service_name === c.service && (c.operation === undefined || span.name === c.operation);
}

export function spanMicros(span: Span): number {
  return Number(span.end_time_unix_nano - span.start_time_unix_nano) / 1000;
}

/** What a rule's window measures at `now`, and whether the rule's condition holds. */
export function measure(rule: AlertRule, window: RuleWindow, now: number): Measurement {
  const length = windowMs(rule);
  if (window.kind === 'latency') {
    const c = rule.conditions as LatencyConditions;
    const { value, samples } = window.durations.percentile(now - length, now + 1, c.percentile);
    return { holds: value !== null && samples >= c.min_samples && value > c.threshold_ms, value, threshold: c.threshold_ms, unit: 'ms', samples };
  }
  const c = rule.conditions as SpikeConditions;
  const current = window.current.sum(now - length, now + 1);
  if (c.threshold !== undefined) return { holds: current > c.threshold, value: current, threshold: c.threshold, unit: 'events' };
  // percent_increase: against the comparison window just before this one, scaled to this one's
  // length; a quiet comparison window counts as one event (so 3 events after silence are +200%).
  const comparison = parseDuration(c.comparison_window) ?? length;
  const before = window.baseline?.sum(now - length - comparison, now - length) ?? 0;
  const expected = Math.max(1, (before * length) / comparison);
  const increase = ((current - expected) / expected) * 100;
  return { holds: increase > (c.percent_increase ?? Infinity), value: increase, threshold: c.percent_increase ?? 0, unit: 'percent' };
}

/** Forgets what no longer falls in the rule's windows. */
export function prune(rule: AlertRule, window: RuleWindow, now: number): void {
  const length = windowMs(rule);
  if (window.kind === 'latency') return window.durations.prune(now - length - window.durations.bucketMs);
  window.current.prune(now - length - window.current.bucketMs);
  const comparison = parseDuration((rule.conditions as SpikeConditions).comparison_window);
  if (comparison !== undefined) window.baseline?.prune(now - length - comparison - (window.baseline?.bucketMs ?? 0));
}

/**
 * Fills a fresh window with the stored items the rule counted before this process started:
 * received from max(counting_since, the oldest instant a window reaches) up to `startedAt`. Items
 * received after `startedAt` go through the processor and are counted there.
 */
export async function rebuild(rule: AlertRule, window: RuleWindow, counts: WindowCounts, startedAt: number): Promise<void> {
  const length = windowMs(rule);
  const reach = length + (parseDuration((rule.conditions as SpikeConditions).comparison_window) ?? 0) + 2 * MIN_BUCKET_MS;
  const from = Math.max(rule.counting_since, startedAt - reach);
  if (from >= startedAt) return;
  const scope = { dataset: rule.dataset, projectId: rule.project_id, from, to: startedAt };
  if (window.kind === 'latency') {
    const c = rule.conditions as LatencyConditions;
    const bins = await counts.spanDurations(
      { ...scope, bucketMs: window.durations.bucketMs },
      { service: c.service, operation: c.operation },
      DURATION_LOG_STEP,
    );
    for (const { at, bin, n } of bins) window.durations.addBin(at, bin, n);
    return;
  }
  const c = rule.conditions as SpikeConditions;
  // Grouped by the finer of the two bucket sizes, then added to both (each rounds to its own).
  const found = await counts.events(
    { ...scope, bucketMs: window.current.bucketMs },
    {
      environment: rule.environment === null ? undefined : [rule.environment],
      issueId: c.issue_id === undefined ? undefined : [c.issue_id],
      level: c.level === undefined ? undefined : [c.level],
      tags: Object.entries(c.tags ?? {}),
    },
  );
  for (const { at, n } of found) {
    window.current.add(at, n);
    window.baseline?.add(at, n);
  }
}
