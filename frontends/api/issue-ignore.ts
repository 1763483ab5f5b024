// `ignore_until` on PATCH /v1/issues/{id} and on every issue the API shows (see src/records/ignore-until.ts).
import { errors } from '../../src/http/errors.js';
import { parseIgnoreCondition, presentIgnoreUntil, type IgnoreCondition } from '../../src/records/ignore-until.js';
import type { Issue } from '../../extensions/query/issues.js';
import type { Storage } from '../../extensions/query/storage.js';

/** The body's `ignore_until`: only with `status: "ignored"`; absent or null is ignoring for good. */
export function ignoreConditionOf(body: object, status: string): IgnoreCondition | undefined {
  const value = 'ignore_until' in body ? body.ignore_until : undefined;
  if (value === undefined || value === null) return undefined;
  if (status !== 'ignored')
    throw errors.validation('ignore_until applies only to status "ignored"', [{ path: 'ignore_until', message: 'needs status "ignored"' }]);
  const parsed = parseIgnoreCondition(value);
  if ('errors' in parsed)
    throw errors.validation(`the ignore_until is invalid: ${parsed.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, parsed.errors);
  return parsed.condition;
}

/** `ignore_until` of an issue: its condition while it is ignored with one, else null. */
export function ignoreField(storage: Storage, issue: Issue): { ignore_until: Record<string, unknown> | null } {
  const value = issue.status === 'ignored' ? storage.issues.ignoreUntil(issue.id) : undefined;
  return { ignore_until: value ? presentIgnoreUntil(value) : null };
}

export const IGNORE_UNTIL_SCHEMA = {
  type: 'object',
  nullable: true,
  description: 'With status "ignored": the issue returns to unresolved once one of these arrives, counted from now',
  properties: {
    count: { type: 'integer', minimum: 1, description: 'N more events' },
    minutes: { type: 'integer', minimum: 1, description: 'M minutes' },
    users: { type: 'integer', minimum: 1, description: 'U more distinct users' },
    until: { type: 'string', format: 'date-time', description: 'That time' },
  },
};
