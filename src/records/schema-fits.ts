// Whether a value fits a schema, asked many times per item (the Sentry mapping checks every frame
// field and breadcrumb of an event on its own): the schema's compiled accept-path first
// (compiled-accept.ts), zod's safeParse only when that is not sure. zod alone was a fifth of an
// envelope event's CPU. The answer is zod's either way: the accept-path accepts only what zod
// accepts (test/validation/compiled.test.ts). The check runs the accept-path in its reuse mode,
// which builds nothing for a value that is zod's output already (the answer is the same in both
// modes); schemaOutput runs the copy mode, for a caller that keeps the output.
import type { z } from 'zod';
import { compileAccept, UNSURE } from './compiled-accept.js';

const checks = new WeakMap<z.ZodType, (value: unknown) => boolean>();
const outputs = new WeakMap<z.ZodType, (value: unknown) => unknown>();

function checkOf(schema: z.ZodType): (value: unknown) => boolean {
  const accept = compileAccept(schema, { reuse: true });
  if (!accept) return (value) => schema.safeParse(value).success;
  return (value) => accept(value) !== UNSURE || schema.safeParse(value).success;
}

export function fitsSchema(schema: z.ZodType, value: unknown): boolean {
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = checkOf(schema)));
  return check(value);
}

/**
 * zod's output of `value` (new objects and arrays, as zod builds) when the compiled accept-path is
 * sure the value fits, else undefined: zod was not asked, and the caller looks closer. For schemas
 * whose output is never undefined (objects).
 */
export function schemaOutput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  let accept = outputs.get(schema);
  if (!accept) outputs.set(schema, (accept = compileAccept(schema) ?? (() => UNSURE)));
  const out = accept(value);
  return out === UNSURE ? undefined : (out as z.output<S>);
}
