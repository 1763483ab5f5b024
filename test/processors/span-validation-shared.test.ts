// What validateSpan shares between calls (one error list, the last resource and scope checked)
// leaks nothing from one span into the next.
import { describe, expect, it } from 'vitest';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validateSpan } from '../../src/records/span-validation/validate-span.js';

const limits = validationConfigSchema.parse({});
const base = { trace_id: 'AB'.repeat(16), span_id: 'cd'.repeat(8), name: 'GET /', start_time: 1_700_000_000_000, end_time: 1_700_000_000_250 };

describe('validateSpan between calls', () => {
  it('returns each rejection its own errors, and a valid span after an invalid one is accepted', () => {
    const first = validateSpan({ ...base, name: '', kind: 'sideways' }, limits);
    const second = validateSpan({ ...base, trace_id: 7 }, limits);
    const third = validateSpan(base, limits);
    expect(first.ok || first.errors).toEqual([
      { path: 'name', message: 'must not be empty' },
      { path: 'kind', message: 'expected one of unspecified, internal, server, client, producer, consumer, got "sideways"' },
    ]);
    expect(second.ok || second.errors).toEqual([{ path: 'trace_id', message: 'expected a string, got number' }]);
    expect(third.ok).toBe(true);
  });

  it('checks a scope shared by spans once but gives each span the checked scope, and an invalid one fails every span', () => {
    const scope = { name: 'lib', version: '1.0', attributes: { a: 1, big: 2n ** 60n } };
    const a = validateSpan({ ...base, scope }, limits);
    const b = validateSpan({ ...base, span_id: 'ef'.repeat(8), scope }, limits);
    expect(a.ok && a.span.scope).toEqual({ name: 'lib', version: '1.0', attributes: { a: 1, big: '1152921504606846976' } });
    expect(b.ok && b.span.scope).toEqual(a.ok && a.span.scope);
    const bad = { version: '1' };
    for (let i = 0; i < 2; i++) {
      const result = validateSpan({ ...base, scope: bad }, limits);
      expect(result.ok || result.errors).toEqual([{ path: 'scope.name', message: 'is required' }]);
    }
  });

  it('lower-cases hex ids with capitals only, and keeps other ids and kinds as sent', () => {
    const result = validateSpan({ ...base, trace_id: 'ABcd'.repeat(8), span_id: 'Zz_9', parent_span_id: 'ab'.repeat(8), kind: 'SERVER', status: 'ok' }, limits);
    expect(result.ok && [result.span.trace_id, result.span.span_id, result.span.parent_span_id, result.span.kind, result.span.status]).toEqual([
      'abcd'.repeat(8),
      'Zz_9',
      'ab'.repeat(8),
      'server',
      'ok',
    ]);
  });
});
