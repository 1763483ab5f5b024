// Zod issues as the API reports them: `{ path: 'exception.stacktrace[3].lineno', message }`.
// Messages for type errors are written here (zod's default wording is not the API's); messages of
// format checks come from the schema.
import type { z } from 'zod';
import type { FieldError } from '../../src/engine/item.js';

type Issue = z.core.$ZodIssue;

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
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function describeInput(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return describeType(value);
}

function messageOf(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'is required';
      const got = issue.expected === 'int' ? describeInput(issue.input) : describeType(issue.input);
      return `expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${got}`;
    }
    case 'invalid_union': {
      // A union of plain types (user.id, tag values): list what each branch expected.
      const expected = issue.errors.map((branch) =>
        branch.length === 1 && branch[0].code === 'invalid_type' ? EXPECTED[branch[0].expected] : undefined,
      );
      if (expected.includes(undefined)) return issue.message;
      const list = `${expected.slice(0, -1).join(', ')} or ${expected[expected.length - 1]}`;
      return `expected ${list}, got ${describeType(issue.input)}`;
    }
    case 'invalid_value': {
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(', ');
      const got = typeof issue.input === 'string' ? describeInput(issue.input) : describeType(issue.input);
      return `expected one of ${allowed}, got ${got}`;
    }
    default:
      return issue.message;
  }
}

/** Needs issues parsed with `{ reportInput: true }`, so that each carries its input. */
export function toFieldErrors(issues: readonly Issue[]): FieldError[] {
  return issues.map((issue) => ({ path: formatPath(issue.path), message: messageOf(issue) }));
}
