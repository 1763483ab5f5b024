// spanDocumentJson is written for the span's shape; toSpanDocument is the document by definition.
// The stored text must be what JSON.stringify(toSpanDocument(span)) makes, byte for byte, including
// for spans whose resource attributes object is shared (its JSON is remembered between spans).
import { describe, expect, it } from 'vitest';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validateSpan } from '../../src/records/span-validation/validate-span.js';
import { spanDocumentJson, toSpanDocument } from '../../src/records/span-document.js';
import type { Span } from '../../src/records/span.js';

const limits = validationConfigSchema.parse({});

function span(raw: Record<string, unknown>): Span {
  const result = validateSpan(raw, limits);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...result.span, project_id: 'p', received_at: '2026-11-22T00:00:00.000Z' };
}

const resourceA = { 'service.name': 'checkout', 'host.name': 'h1', 'process.pid': 42 };
const resourceB = { 'service.name': 'gateway', 'deployment.environment.name': 'prod "eu"' };
const base = {
  trace_id: 'AB'.repeat(16),
  span_id: 'cd'.repeat(8),
  name: 'GET /',
  start_time: 1_700_000_000_123_456_789n,
  end_time: 1_700_000_000_250_000_001n,
};

describe('spanDocumentJson', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['a minimal span', base],
    [
      'every optional field',
      {
        ...base,
        parent_span_id: 'ef'.repeat(8),
        status: 'error',
        status_message: 'upstream said "no"\n\u2028',
        kind: 'server',
        trace_state: 'a=b,c=d',
        attributes: { 'http.route': '/x', n: 3, big: 2n ** 60n, ok: true, nothing: null, list: ['a', 1, false], map: { k: { v: 'w' } }, 'é "quoted"': 'ü' },
        resource_attributes: resourceA,
        scope: { name: 'lib', version: '1.0', attributes: { a: 1 } },
        events: [
          { name: 'exception', time: 1_700_000_000_200_000_000n, attributes: { 'exception.type': 'Error', 'exception.message': 'bad\tthing' } },
          { name: 'retry', time: 1_700_000_000_210_000_000n },
        ],
        links: [{ trace_id: '12'.repeat(16), span_id: '34'.repeat(8), trace_state: 'x=y', attributes: { why: 'follows' } }],
      },
    ],
    ['a scope without a version', { ...base, scope: { name: 'lib' }, resource_attributes: resourceB }],
    ['a zero-length span', { ...base, end_time: base.start_time }],
  ];

  it.each(cases)('writes %s as JSON.stringify(toSpanDocument) does', (_name, raw) => {
    const s = span(raw);
    expect(spanDocumentJson(s)).toBe(JSON.stringify(toSpanDocument(s)));
  });

  it('spans sharing a resource object, and alternating between two, each get their own resource', () => {
    const spans = [resourceA, resourceA, resourceB, resourceA, resourceB, resourceB].map((resource_attributes, i) =>
      span({ ...base, span_id: `${i}`.repeat(16), resource_attributes }),
    );
    for (const s of spans) expect(spanDocumentJson(s)).toBe(JSON.stringify(toSpanDocument(s)));
    expect(JSON.parse(spanDocumentJson(spans[2])).resource_attributes['service.name']).toBe('gateway');
  });

  it('spans sharing a scope object (as validation leaves them), and alternating between two, each get their own scope', () => {
    const scopeA = { name: 'lib-a', version: '1' };
    const scopeB = { name: 'lib-b', attributes: { k: 'v' } };
    const spans = [scopeA, scopeA, scopeB, scopeA, undefined, scopeB].map((scope, i) => span({ ...base, span_id: `${i}`.repeat(16), scope }));
    expect(spans[1].scope).toBe(spans[0].scope);
    for (const s of spans) expect(spanDocumentJson(s)).toBe(JSON.stringify(toSpanDocument(s)));
    expect(JSON.parse(spanDocumentJson(spans[2])).scope.name).toBe('lib-b');
  });
});
