// Whether a value fits a schema, asked many times per item (the Sentry mapping checks every frame
// field and breadcrumb of an event on its own): the schema's compiled accept-path first
// (compiled-accept.ts), zod's safeParse only when that is not sure. zod alone was a fifth of an
// envelope event's CPU. The answer is zod's either way: the accept-path accepts only what zod
// accepts (test/validation/compiled.test.ts).
import type { z } from 'zod';
import { compileAccept, UNSURE } from './compiled-accept.js';

const checks = new WeakMap<z.ZodType, (value: unknown) => boolean>();

function checkOf(schema: z.ZodType): (value: unknown) => boolean {
  const accept = compileAccept(schema);
  if (!accept) return (value) => schema.safeParse(value).success;
  return (value) => accept(value) !== UNSURE || schema.safeParse(value).success;
}

export function fitsSchema(schema: z.ZodType, value: unknown): boolean {
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = checkOf(schema)));
  return check(value);
}
