// fitsSchema answers what zod's safeParse answers, through the compiled accept-path when it can.
import { describe, expect, it } from 'vitest';
import { breadcrumbSchema, debugImageSchema, levelSchema, requestSchema, stackFrameSchema, userSchema } from '../../src/records/event-schema.js';
import { fitsSchema, schemaOutput } from '../../src/records/schema-fits.js';
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

describe('schemaOutput', () => {
  const objects: Array<[string, z.ZodType]> = [
    ['frame', stackFrameSchema],
    ['breadcrumb', breadcrumbSchema],
    ['user', userSchema],
    ['request', requestSchema],
  ];
  const frames: unknown[] = [
    { filename: 'a.js', function: 'f', lineno: 1, colno: 2, in_app: true, pre_context: ['x'], vars: { a: 1 } },
    { in_app: false, filename: 'b.js' },
    { filename: 'a.js', module: null },
    { lineno: -1 },
    { debug_id: 'A1B2C3D4-0123-4567-89AB-CDEF01234567' },
  ];
  for (const [name, schema] of objects)
    it(`is zod's output, in new objects, when it is sure, for ${name}`, () => {
      let sure = 0;
      for (const value of [...values, ...frames]) {
        const out = schemaOutput(schema, value);
        if (out === undefined) continue;
        sure++;
        const zod = schema.safeParse(value);
        expect([name, value, zod.success]).toEqual([name, value, true]);
        expect(JSON.stringify(out)).toBe(JSON.stringify(zod.data));
        if (typeof value === 'object' && value !== null) expect(out).not.toBe(value);
      }
      expect(sure).toBeGreaterThan(0);
    });
});
