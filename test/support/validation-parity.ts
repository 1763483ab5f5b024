// The compiled accept-path of the event schema (processors/validation/compiled.ts) against zod on
// one body: where zod accepts, the compiled path accepts too, with exactly zod's output (the same
// values, the same keys in the same order), in both modes (copy, and reuse of the body's own
// objects, which must leave the body unchanged); where zod rejects, the compiled path is unsure, so
// that zod words the rejection. The validation tests call it on every body they validate.
import { expect } from 'vitest';
import { compileAccept, UNSURE } from '../../processors/validation/compiled.js';
import { apiErrorMap } from '../../src/records/zod-issues.js';
import { tooDeep } from '../../processors/validation/depth.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { errorEventInputSchema } from '../../src/records/event-schema.js';

const accept = compileAccept(errorEventInputSchema);
const acceptReusing = compileAccept(errorEventInputSchema, { reuse: true });

/** Counts of the bodies compared, by outcome (a test can check both sides were reached). */
export const parityCounts = { accepted: 0, rejected: 0 };

export function expectCompiledParity(raw: unknown): void {
  if (!accept) throw new Error('the event schema no longer compiles to an accept-path: see processors/validation/compiled.ts');
  // validateEvent refuses these before either path runs (and a deep body would overflow the comparison).
  if (tooDeep(raw, validationConfigSchema.parse({}).max_depth) !== undefined) return;
  const zod = errorEventInputSchema.safeParse(raw, { error: apiErrorMap });
  const compiled = accept(raw);
  // The reuse mode shares the body's objects and must leave the body as it was.
  const rawJson = jsonOrNothing(raw);
  const reused = acceptReusing?.(raw);
  expect(jsonOrNothing(raw), 'the reuse mode changed the body').toBe(rawJson);
  if (zod.success) {
    parityCounts.accepted++;
    expect(compiled, 'the compiled path is unsure of a body zod accepts').not.toBe(UNSURE);
    expect(compiled).toStrictEqual(zod.data);
    expect(JSON.stringify(compiled)).toBe(JSON.stringify(zod.data));
    expect(reused, 'the reuse mode is unsure of a body zod accepts').not.toBe(UNSURE);
    expect(reused).toStrictEqual(zod.data);
    expect(JSON.stringify(reused)).toBe(JSON.stringify(zod.data));
  } else {
    parityCounts.rejected++;
    expect(compiled, `the compiled path accepts a body zod rejects: ${JSON.stringify(zod.error.issues.slice(0, 3))}`).toBe(UNSURE);
    expect(reused, 'the reuse mode accepts a body zod rejects').toBe(UNSURE);
  }
}

/** The JSON of a value, or undefined for one JSON cannot hold (a BigInt, from the fuzz tests). */
function jsonOrNothing(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
