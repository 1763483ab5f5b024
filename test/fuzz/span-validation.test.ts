// Fuzz: the span validation (src/records/span-validation) takes any span input and either rejects
// it with field-level errors or makes a Span whose times fit the int64 nanoseconds they are stored as.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { toNanos } from '../../src/records/span-validation/times.js';
import { validateSpan } from '../../src/records/span-validation/validate-span.js';
import { MAX_STORABLE_NANOS } from '../../src/records/nanos.js';
import { spanDocumentJson } from '../../src/records/span-document.js';
import { FUZZ_TIMEOUT_MS, mostlyValid, oddValue } from './fuzz-config.js';

const limits = validationConfigSchema.parse({ max_span_attributes: 8, max_span_events: 4, max_span_links: 4, max_attribute_value_length: 64 });
const ID = /^[0-9A-Za-z_-]{1,64}$/;

const NOW_MS = 1_763_805_600_000;
const time = fc.oneof(
  { arbitrary: fc.integer({ min: NOW_MS - 1_000_000, max: NOW_MS + 1_000_000 }), weight: 6 },
  { arbitrary: fc.bigInt({ min: BigInt(NOW_MS) * 1_000_000n, max: BigInt(NOW_MS) * 1_000_000n + 10n ** 12n }), weight: 2 },
  fc.integer({ min: 0, max: 2 ** 53 }),
  fc.bigInt({ min: 0n, max: 2n ** 64n }),
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String),
  fc.double({ min: 0, max: 1e20, noNaN: true }),
);
const attributes = fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(oddValue, fc.string(), fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()))), {
  maxKeys: 12,
});
const fields = mostlyValid(
  {
    trace_id: fc.stringMatching(/^[0-9a-fA-F]{32}$/),
    span_id: fc.stringMatching(/^[0-9A-Za-z_-]{1,20}$/),
    parent_span_id: fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9a-f]{16}$/)),
    name: fc.string({ minLength: 1, maxLength: 100 }),
    start_time: time,
    end_time: time,
    status: fc.constantFrom('unset', 'ok', 'error', 'OK'),
    kind: fc.constantFrom('server', 'client', 'internal', 'CONSUMER'),
    attributes,
    resource_attributes: attributes,
    events: fc.array(mostlyValid({ name: fc.string(), time, attributes }, ['name', 'time']), { maxLength: 6 }),
    links: fc.array(
      mostlyValid({ trace_id: fc.stringMatching(/^[0-9A-Za-z_-]{1,64}$/), span_id: fc.stringMatching(/^[0-9a-f]{16}$/), attributes }, ['trace_id', 'span_id']),
      { maxLength: 6 },
    ),
    scope: mostlyValid({ name: fc.string(), version: fc.string() }, ['name']),
  },
  ['trace_id', 'span_id', 'name', 'start_time', 'end_time'],
);
/** Mostly an end after the start, as spans have. */
const span = fc
  .tuple(fields, fc.nat(10_000_000), fc.boolean())
  .map(([raw, duration, ordered]) => (ordered && typeof raw.start_time === 'number' ? { ...raw, end_time: raw.start_time + duration } : raw));

describe('fuzz: span validation', () => {
  it(
    'toNanos: any value is an int64 count of nanoseconds or a message',
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.anything(), time), (value) => {
          const nanos = toNanos(value);
          if (typeof nanos === 'string') expect(nanos.length).toBeGreaterThan(0);
          else {
            expect(typeof nanos).toBe('bigint');
            expect(nanos >= 0n && nanos <= MAX_STORABLE_NANOS).toBe(true);
          }
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'validateSpan: any value is rejected with errors or becomes a storable span, never a throw',
    () => {
      let accepted = 0;
      fc.assert(
        fc.property(fc.oneof(fc.anything(), span), (raw) => {
          const result = validateSpan(raw, limits);
          if (!result.ok) {
            expect(result.errors.length).toBeGreaterThan(0);
            for (const error of result.errors) expect(error).toEqual({ path: expect.any(String), message: expect.any(String) });
            return;
          }
          accepted++;
          const { span: checked } = result;
          expect(checked.trace_id).toMatch(ID);
          expect(checked.span_id).toMatch(ID);
          expect(checked.start_time_unix_nano >= 0n && checked.end_time_unix_nano <= MAX_STORABLE_NANOS).toBe(true);
          expect(checked.end_time_unix_nano >= checked.start_time_unix_nano).toBe(true);
          for (const event of checked.events) expect(event.time_unix_nano <= MAX_STORABLE_NANOS).toBe(true);
          expect(Object.keys(checked.attributes).length).toBeLessThanOrEqual(limits.max_span_attributes);
          expect(JSON.parse(spanDocumentJson({ ...checked, project_id: 'p', received_at: '2026-11-22T00:00:00.000Z' }))).toMatchObject({
            span_id: checked.span_id,
          });
        }),
      );
      expect(accepted, 'the generated spans should often be valid').toBeGreaterThan(fc.readConfigureGlobal().numRuns! / 20);
    },
    FUZZ_TIMEOUT_MS,
  );
});
