// Zod issues as the API reports them: `{ path: 'exception.stacktrace[3].lineno', message }`.
// apiErrorMap words type errors the API's way ("expected a string, got number"); messages set on
// a schema or check win over it, as zod gives them precedence over a per-parse error map.
import type { z } from 'zod';
import type { FieldError } from '../engine/item.js';
import { describeType } from './json-type.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

/** `exception.stacktrace[3].lineno`, `tags["user agent"]`; the body itself is ''. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out = joinPath(out, typeof key === 'number' ? key : String(key));
  return out;
}

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!IDENTIFIER.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === '' ? key : `${base}.${key}`;
}

/** JSON type names: null and array are told apart from object. */

/** A string is shown (shortened), anything else by its type. */
function describeInput(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return describeType(value);
}

/** For `safeParse(data, { error: apiErrorMap })`. Undefined leaves an issue to zod's wording. */
export const apiErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${describeType(issue.input)}`;
    }
    case 'invalid_union': {
      // A union of plain types (user.id, tag values): list what each branch expected.
      const expected = issue.errors.map((branch) => (branch.length === 1 && branch[0].code === 'invalid_type' ? EXPECTED[branch[0].expected] : undefined));
      if (expected.includes(undefined)) return undefined;
      const list = `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1]}`;
      return `expected ${list}, got ${describeType(issue.input)}`;
    }
    case 'invalid_value': {
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(', ');
      return `expected one of ${allowed}, got ${describeInput(issue.input)}`;
    }
    default:
      return undefined;
  }
};

export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}
