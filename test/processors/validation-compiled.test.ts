// The compiled accept-path of the event schema (processors/validation/compiled.ts): the same
// output as zod on the bench's realistic events, unsure (so that zod words the error) on what zod
// rejects, and no accept-path at all for a schema construct it does not know. Parity on every body
// of the validation tests is checked by those tests themselves (test/support/validation-parity.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventBodies } from '../../bench/payloads.js';
import { compileAccept, UNSURE } from '../../processors/validation/compiled.js';
import { validateEvent } from '../../processors/validation/validate.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { expectCompiledParity, parityCounts } from '../support/validation-parity.js';

describe('compiled accept-path of the event schema', () => {
  it("equals zod's output on 512 realistic events (frames, breadcrumbs, tags, contexts, request)", () => {
    const before = parityCounts.accepted;
    for (const body of eventBodies(512).bodies) expectCompiledParity(JSON.parse(body.toString('utf8')));
    expect(parityCounts.accepted - before).toBe(512);
  });

  it('is unsure of what zod rejects, and validateEvent then reports zod’s details', () => {
    const body = JSON.parse(eventBodies(1).bodies[0].toString('utf8')) as Record<string, unknown>;
    const bad = { ...body, level: 'loud', tags: { a: [1] } };
    expectCompiledParity(bad);
    const result = validateEvent(bad, validationConfigSchema.parse({}));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path).sort()).toEqual(['level', 'tags.a']);
  });

  it('runs the schema’s own checks and transforms, defaults and stripping', () => {
    const schema = z.object({
      n: z.int().min(0),
      s: z.string().min(2).regex(/^a/),
      t: z.union([z.string(), z.number()]).transform(String).optional(),
      l: z.enum(['x', 'y']).default('x'),
      r: z.string().refine((v) => v !== 'no'),
      loose: z.looseObject({ k: z.boolean() }).optional(),
    });
    const accept = compileAccept(schema);
    expect(accept).toBeTypeOf('function');
    expect(accept!({ n: 1, s: 'ab', t: 5, r: 'ok', extra: 1, loose: { k: true, more: [1] } })).toStrictEqual(
      schema.parse({ n: 1, s: 'ab', t: 5, r: 'ok', extra: 1, loose: { k: true, more: [1] } }),
    );
    for (const bad of [{ n: 1.5 }, { n: -1 }, { s: 'a' }, { s: 'bb' }, { r: 'no' }, { l: 'z' }, { loose: { k: 1 } }, { t: null }]) {
      const body = { n: 1, s: 'ab', r: 'ok', ...bad };
      expect(schema.safeParse(body).success, JSON.stringify(bad)).toBe(false);
      expect(accept!(body), JSON.stringify(bad)).toBe(UNSURE);
    }
  });

  it('keeps its checks and transforms right when one throws or runs the same path again (one payload per path, a fresh one when re-entered)', () => {
    for (const reuse of [false, true]) {
      const schema = z.object({
        depth: z.number().refine((n) => n < 5),
        next: z.unknown().refine((v) => v === null || accept?.(v) !== UNSURE),
        label: z
          .string()
          .transform((v) => {
            if (v === 'boom') throw new Error('boom');
            return v.toUpperCase();
          })
          .optional(),
      });
      const accept = compileAccept(schema, { reuse });
      const chain = { depth: 1, next: { depth: 2, next: { depth: 3, next: null, label: 'c' } }, label: 'a' };
      expect(accept?.(chain)).toStrictEqual(schema.parse(chain));
      const badInside = { depth: 1, next: { depth: 2, next: { depth: 9, next: null } } };
      expect(schema.safeParse(badInside).success).toBe(false);
      expect(accept?.(badInside)).toBe(UNSURE);
      expect(() => accept?.({ depth: 1, next: null, label: 'boom' })).toThrow('boom');
      // Nothing is left over from the failures: the next value is checked from scratch.
      expect(accept?.(chain)).toStrictEqual(schema.parse(chain));
      expect(accept?.({ depth: 7, next: null })).toBe(UNSURE);
    }
  });

  it('compiles nothing for a construct it does not know, so zod alone decides', () => {
    expect(compileAccept(z.object({ d: z.date() }))).toBeUndefined();
    expect(compileAccept(z.object({ a: z.string() }).catchall(z.number()))).toBeUndefined();
  });
});
