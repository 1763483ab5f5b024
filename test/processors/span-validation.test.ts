import { describe, expect, it } from 'vitest';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { toNanos } from '../../src/records/span-validation/times.js';
import { validateSpan } from '../../src/records/span-validation/validate-span.js';

const limits = validationConfigSchema.parse({});
const base = { trace_id: 'AB'.repeat(16), span_id: 'cd'.repeat(8), name: 'GET /', start_time: 1_700_000_000_000, end_time: 1_700_000_000_250 };

function ok(raw: Record<string, unknown>) {
  const result = validateSpan(raw, limits);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.span;
}

function errors(raw: unknown) {
  const result = validateSpan(raw, limits);
  if (result.ok) throw new Error('expected a rejection');
  return result.errors;
}

describe('span times', () => {
  it.each([
    [1_700_000_000, 1_700_000_000_000_000_000n],
    [1_700_000_000_123, 1_700_000_000_123_000_000n],
    [1_700_000_000_123_456, 1_700_000_000_123_456_000n],
    [1_700_000_000_123_456_789n, 1_700_000_000_123_456_789n],
    ['1700000000123456789', 1_700_000_000_123_456_789n],
    [0, 0n],
    [9_223_372_036, 9_223_372_036_000_000_000n],
    ['9223372036854775807', 9_223_372_036_854_775_807n],
  ])('%s -> %s ns', (input, expected) => {
    expect(toNanos(input)).toBe(expected);
  });

  it.each([[-1], [Number.NaN], ['12abc'], [null], [[1]], [1_700_000_000_123_456.5]])('refuses %s', (input) => {
    expect(typeof toNanos(input)).toBe('string');
  });

  // Times are integers (DESIGN.md): a fraction was rounded before issue #10, now it is refused.
  it.each([[1_700_000_000.5], [1_700_000_000_123.25]])('refuses the fraction %s', (input) => {
    expect(toNanos(input)).toMatch(/^must be an integer, got .* \(times are integers/);
  });

  // Beyond a signed 64-bit count of nanoseconds (after 2262-04-11): DuckDB refused to index them.
  it.each([
    [9_300_000_000_000_000_000n, 'nanoseconds'],
    ['9300000000000000000', 'nanoseconds'],
    ['9223372036854775808', 'nanoseconds'],
    [18_446_744_073_709_551_615n, 'nanoseconds'],
    [5e16, 'microseconds'],
    [9_223_372_036_855, 'milliseconds'],
    [99_999_999_999, 'seconds'],
  ])('refuses %s, read as %s, beyond 2262', (input, unit) => {
    expect(toNanos(input)).toBe(`must be between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16.854Z; ${input} read as ${unit} is after 2262`);
  });
});

describe('validateSpan', () => {
  it('normalizes hex ids to lower case, defaults status, kind and service, and keeps nanoseconds', () => {
    const span = ok(base);
    expect(span).toMatchObject({
      trace_id: 'ab'.repeat(16),
      span_id: 'cd'.repeat(8),
      parent_span_id: '',
      status: 'unset',
      kind: 'unspecified',
      service_name: 'unknown_service',
      start_time_unix_nano: 1_700_000_000_000_000_000n,
      end_time_unix_nano: 1_700_000_000_250_000_000n,
      events: [],
      links: [],
    });
  });

  it('keeps non-hex ids as sent', () => {
    expect(ok({ ...base, span_id: 'Span_One-1' }).span_id).toBe('Span_One-1');
  });

  it('lists every problem of a span', () => {
    expect(errors({ span_id: 'x y', name: '', start_time: 'soon', end_time: -5, status: 'broken', kind: 7, attributes: [] })).toEqual([
      { path: 'trace_id', message: 'is required' },
      { path: 'span_id', message: 'must be 1-64 characters of [0-9A-Za-z_-]' },
      { path: 'name', message: 'must not be empty' },
      { path: 'start_time', message: 'expected an integer time, got a string that is not one' },
      { path: 'end_time', message: 'must be a finite, non-negative number' },
      { path: 'status', message: 'expected one of unset, ok, error, got "broken"' },
      { path: 'kind', message: expect.stringMatching(/^expected one of unspecified, .* got number$/) },
      { path: 'attributes', message: 'expected an object, got array' },
    ]);
  });

  it('keeps typed attributes, nested maps (OTLP kvlist) and large integers as strings', () => {
    const span = ok({
      ...base,
      attributes: { s: 'a', n: 1.5, b: false, list: [1, 2], map: { inner: { deep: 'x' } }, big: 9_007_199_254_740_993n, safe: 42n },
    });
    expect(span.attributes).toEqual({ s: 'a', n: 1.5, b: false, list: [1, 2], map: { inner: { deep: 'x' } }, big: '9007199254740993', safe: 42 });
  });

  it('refuses arrays of objects and non-finite numbers in attributes', () => {
    expect(errors({ ...base, attributes: { a: [{}], b: Number.POSITIVE_INFINITY } }).map((e) => e.path)).toEqual(['attributes.a[0]', 'attributes.b']);
  });

  it('caps attributes and truncates long values, as the SDKs do', () => {
    const attributes = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(5000)]));
    const span = ok({ ...base, attributes });
    expect(Object.keys(span.attributes)).toHaveLength(128);
    expect((span.attributes.k0 as string).length).toBe(4096);
  });

  it('keeps an attributes object whose values need nothing as it is, and copies one that does, as before', () => {
    const plain = { s: 'a', n: 1.5, b: false, nothing: null };
    expect(ok({ ...base, attributes: plain }).attributes).toBe(plain);
    const event = { name: 'e', time: 1_700_000_000_100, attributes: { k: 'v' } };
    expect(ok({ ...base, events: [event] }).events[0].attributes).toBe(event.attributes);
    // Each of these takes the copying path, with what it did before: truncated, converted, dropped.
    const long = { s: 'x'.repeat(5000) };
    expect(ok({ ...base, attributes: long }).attributes).toEqual({ s: 'x'.repeat(4096) });
    const big = { n: 42n };
    expect(ok({ ...base, attributes: big }).attributes).toEqual({ n: 42 });
    const proto = JSON.parse('{"a":"1","__proto__":"x"}') as Record<string, unknown>;
    const copied = ok({ ...base, attributes: proto }).attributes;
    expect(copied).not.toBe(proto);
    expect(JSON.stringify(copied)).toBe('{"a":"1"}');
  });

  it('validates events and links', () => {
    const span = ok({
      ...base,
      events: [{ name: 'exception', time: 1_700_000_000_100, attributes: { 'exception.type': 'E' } }],
      links: [{ trace_id: 'EF'.repeat(16), span_id: '01'.repeat(8), attributes: { a: 1 } }],
    });
    expect(span.events).toEqual([{ name: 'exception', time_unix_nano: 1_700_000_000_100_000_000n, attributes: { 'exception.type': 'E' } }]);
    expect(span.links).toEqual([{ trace_id: 'ef'.repeat(16), span_id: '01'.repeat(8), attributes: { a: 1 } }]);
    expect(errors({ ...base, events: [{ time: 1 }], links: [{ trace_id: '' }] }).map((e) => e.path)).toEqual(['events[0].name', 'links[0].trace_id']);
  });

  it('takes service_name from the resource when not given', () => {
    expect(ok({ ...base, resource_attributes: { 'service.name': 'checkout' } }).service_name).toBe('checkout');
    expect(ok({ ...base, service_name: 'explicit', resource_attributes: { 'service.name': 'checkout' } }).service_name).toBe('explicit');
  });
});
