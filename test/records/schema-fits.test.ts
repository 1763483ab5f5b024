// fitsSchema answers what zod's safeParse answers, through the compiled accept-path when it can.
import { describe, expect, it } from 'vitest';
import { breadcrumbSchema, debugImageSchema, levelSchema, requestSchema, stackFrameSchema, userSchema } from '../../src/records/event-schema.js';
import { fitsSchema } from '../../src/records/schema-fits.js';
import type { z } from 'zod';

const values: unknown[] = [
  undefined,
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 40,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  'x',
  'error',
  'x'.repeat(10_000),
  [],
  ['a', 1],
  {},
  { message: 'm', category: 'ui.click', level: 'info', timestamp: '2026-01-01T00:00:00.000Z' },
  { message: 'm', timestamp: 'yesterday' },
  { type: 'http', data: { url: '/x', status_code: 200 } },
  { id: 'u1', email: 'a@example.com' },
  { id: 5 },
  { url: 'https://example.com/a?b=1', method: 'GET', headers: { accept: '*/*' } },
  { url: 1 },
  { type: 'sourcemap', code_file: 'https://cdn.example.com/app.js', debug_id: '0123456789abcdef0123456789abcdef' },
  { type: 'sourcemap' },
  { __proto__: null, a: 1 },
];

const schemas: Array<[string, z.ZodType]> = [
  ['breadcrumb', breadcrumbSchema],
  ['level', levelSchema],
  ['request', requestSchema],
  ['user', userSchema],
  ['sourcemap image', debugImageSchema('sourcemap') as z.ZodType],
  ...Object.entries(stackFrameSchema.shape).map(([field, schema]): [string, z.ZodType] => [`frame.${field}`, schema as z.ZodType]),
];

describe('fitsSchema', () => {
  for (const [name, schema] of schemas)
    it(`agrees with zod for ${name}`, () => {
      for (const value of values) expect([name, value, fitsSchema(schema, value)]).toEqual([name, value, schema.safeParse(value).success]);
      // Asked again (the compiled check is kept): the same answers.
      for (const value of values) expect(fitsSchema(schema, value)).toBe(schema.safeParse(value).success);
    });
});
