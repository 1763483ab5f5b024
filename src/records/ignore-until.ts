// "Ignore until": the condition under which an ignored issue returns to unresolved, as
// PATCH /v1/issues/{id} takes it (`ignore_until`), and its validation.
import type { FieldError } from '../engine/item.js';

export type IgnoreCondition = { count: number } | { minutes: number } | { users: number } | { until: string };

/** Bounds of each condition: a condition past them is a mistake, not a plan. */
export const IGNORE_LIMITS = { count: 1_000_000, minutes: 525_600, users: 10_000 } as const;
/** The latest `until` accepted, from now. */
const MAX_UNTIL_MS = 366 * 24 * 60 * 60_000;
/** ISO-8601 date and time with an offset or Z; checked before Date.parse, which accepts much else. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** An ignored issue's condition with when it was set: what is stored, replicated and shown. */
export interface IgnoreUntil {
  condition: IgnoreCondition;
  /** When the issue was ignored (epoch ms): counts and minutes run from here. */
  ignoredAt: number;
  /** minutes and until: when the issue returns (epoch ms); else null. */
  deadline: number | null;
}

export function ignoreUntil(condition: IgnoreCondition, ignoredAt: number): IgnoreUntil {
  const deadline = 'minutes' in condition ? ignoredAt + condition.minutes * 60_000 : 'until' in condition ? Date.parse(condition.until) : null;
  return { condition, ignoredAt, deadline };
}

/** How the API shows it: the condition as given, when it was set and, for time conditions, when it ends. */
export function presentIgnoreUntil(value: IgnoreUntil): Record<string, unknown> {
  return {
    ...value.condition,
    ignored_at: new Date(value.ignoredAt).toISOString(),
    ...(value.deadline === null ? {} : { ends_at: new Date(value.deadline).toISOString() }),
  };
}

/** Checks `ignore_until` (exactly one of count, minutes, users, until); every problem names its field. */
export function parseIgnoreCondition(value: unknown, now = Date.now()): { condition: IgnoreCondition } | { errors: FieldError[] } {
  const path = 'ignore_until';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { errors: [{ path, message: 'must be an object with one of count, minutes, users, until' }] };
  const keys = Object.keys(value);
  if (keys.length !== 1 || !['count', 'minutes', 'users', 'until'].includes(keys[0]))
    return { errors: [{ path, message: 'must have exactly one of count, minutes, users, until' }] };
  const key = keys[0] as 'count' | 'minutes' | 'users' | 'until';
  const given = (value as Record<string, unknown>)[key];
  if (key === 'until') {
    if (typeof given !== 'string' || given.length > 40 || !ISO_DATE_TIME.test(given) || Number.isNaN(Date.parse(given)))
      return { errors: [{ path: `${path}.until`, message: 'must be an ISO-8601 date and time with a time zone, e.g. 2026-12-01T09:00:00Z' }] };
    const at = Date.parse(given);
    if (at <= now || at > now + MAX_UNTIL_MS) return { errors: [{ path: `${path}.until`, message: 'must be in the future, at most a year ahead' }] };
    return { condition: { until: new Date(at).toISOString() } };
  }
  const max = IGNORE_LIMITS[key];
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > max)
    return { errors: [{ path: `${path}.${key}`, message: `must be an integer from 1 to ${max}` }] };
  return { condition: { [key]: given } as IgnoreCondition };
}
