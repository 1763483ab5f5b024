// The `spanbatch2` document (exporters/duckdb/span-batch.ts, span-compact.ts) stores each span as
// a compact array and its resource and scope once per batch; a span read back must be the text
// spanDocumentJson makes at ingest, byte for byte, whatever its values: keys V8 orders or treats
// specially, lone surrogates, line separators, numbers at JSON's edges, nested maps, events and
// links, spans of several resources and scopes in one batch.
import { describe, expect, it } from 'vitest';
import { batchDocument, ParsedSpanBatch, spanBatchIntake } from '../../exporters/duckdb/span-batch.js';
import { decodeTraceRequestJson } from '../../src/otlp/decode/json.js';
import { spanDocumentJson } from '../../src/records/span-document.js';
import { SPAN_LIMIT_DEFAULTS, validateSpan } from '../../src/records/span-validation/validate-span.js';
import type { Span } from '../../src/records/span.js';

const RECEIVED = '2026-11-27T10:00:00.000Z';

function checked(raw: Record<string, unknown>): Span {
  const result = validateSpan(raw, SPAN_LIMIT_DEFAULTS);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...result.span, project_id: 'p1', received_at: RECEIVED };
}

const odd: Record<string, unknown> = {
  '10': 'ten',
  '2': 'two',
  'x.y': -0,
  big: 1e21,
  tiny: 5e-324,
  unsafe: 2n ** 63n - 1n,
  lone: 'a\ud800b',
  separators: 'line\u2028para\u2029 "q" \\ \t',
  nothing: null,
  list: [1, 'two', false, null],
  map: { inner: { deeper: ['a'] }, '1': 1 },
  'é ünï 😀': 'ok',
};
Object.defineProperty(odd, '__proto__', { value: 'own', enumerable: true, writable: true, configurable: true });

/** Spans of two resources and three scopes, as the OTLP JSON decoder hands them on (shared objects). */
function decodedSpans(): Span[] {
  const resource = (service: string) => ({
    attributes: [
      { key: 'service.name', value: { stringValue: service } },
      { key: 'host.cpus', value: { intValue: '8' } },
    ],
  });
  const span = (i: number) => ({
    traceId: 'ab'.repeat(16),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    parentSpanId: i ? '0000000000000001' : '',
    name: `op ${i}`,
    kind: 2,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n + 123_456n),
    attributes: [{ key: 'i', value: { intValue: String(i) } }],
  });
  const body = {
    resourceSpans: [
      {
        resource: resource('api'),
        scopeSpans: [
          { scope: { name: 'http', version: '1.0' }, spans: [span(0), span(1)] },
          { scope: { name: 'db' }, spans: [span(2)] },
        ],
      },
      { resource: resource('worker'), scopeSpans: [{ spans: [span(3), span(4)] }, { scope: { name: 'http', version: '1.0' }, spans: [span(5)] }] },
    ],
  };
  return decodeTraceRequestJson(JSON.stringify(body)).resourceSpans.flatMap((r) => r.spans.map((s) => checked(s as Record<string, unknown>)));
}

describe('spanbatch2 documents', () => {
  it('read each span back as spanDocumentJson wrote it, odd values and all', () => {
    const spans = [
      checked({
        trace_id: 'CD'.repeat(16),
        span_id: 'ef'.repeat(8),
        name: 'naïve 😀 \u2028',
        start_time: 1_700_000_000_123_456_789n,
        end_time: 1_700_000_000_250_000_001n,
        status: 'error',
        status_message: 'said "no"\n',
        kind: 'client',
        trace_state: 'a=b',
        attributes: odd,
        resource_attributes: { 'service.name': 'svc', nested: { k: [1, 2] } },
        scope: { name: 'lib', version: '2', attributes: { s: true } },
        events: [
          { name: 'exception', time: 1_700_000_000_200_000_000n, attributes: { 'exception.message': 'bad\u2028thing', ...odd } },
          { name: 'empty', time: 1_700_000_000_210_000_001n },
        ],
        links: [
          { trace_id: '12'.repeat(16), span_id: '34'.repeat(8), trace_state: 'x=y', attributes: { why: 'retry' } },
          { trace_id: '56'.repeat(16), span_id: '78'.repeat(8) },
        ],
      }),
      checked({ trace_id: 't1', span_id: 's1', name: 'minimal', start_time: 1_700_000_000_000, end_time: 1_700_000_000_000 }),
      ...decodedSpans(),
    ];
    const doc = batchDocument(1_700_000_000_250, 'abc.1', RECEIVED, spans);
    const parsed = ParsedSpanBatch.parse(doc);
    expect(parsed.length).toBe(spans.length);
    spans.forEach((span, i) => expect(parsed.span(i)).toBe(spanDocumentJson(span)));
    expect(ParsedSpanBatch.parse(doc.toString('utf8')).span(3)).toBe(spanDocumentJson(spans[3]));
    expect(parsed.rows()).toEqual(
      spans.map((s) => ({
        trace_id: s.trace_id,
        span_id: s.span_id,
        parent_span_id: s.parent_span_id,
        name: s.name,
        service_name: s.service_name,
        start_time_unix_nano: s.start_time_unix_nano,
        end_time_unix_nano: s.end_time_unix_nano,
        status: s.status,
        kind: s.kind,
        received_at: RECEIVED,
      })),
    );
    for (const index of [spans.length, -1, 0.5]) expect(parsed.span(index)).toBe(undefined);
    // What a quarantine keeps of the batch: its spans' documents as one JSON array.
    expect(spanBatchIntake.json?.(doc.toString('utf8'))).toBe(`[${spans.map(spanDocumentJson).join(',')}]`);
  });

  it('store a resource and scope once for all their spans', () => {
    const spans = decodedSpans();
    const text = batchDocument(1, 'a.1', RECEIVED, spans).toString('utf8');
    // Five distinct (resource, scope) pairs, each once; the resource's JSON is in no span's array.
    expect(text.split('"service.name":"api"').length - 1).toBe(2);
    expect(text.split('"service.name":"worker"').length - 1).toBe(2);
    const perSpan = spans.map(spanDocumentJson).join('').length;
    expect(text.length).toBeLessThan(perSpan);
  });

  it('refuse what is not a batch document', () => {
    for (const doc of ['', 'spanbatch3 1 a r\n0\n\n[]', 'spanbatch2 1 a r\n0', '{"trace_id":"x"}']) expect(() => ParsedSpanBatch.parse(doc)).toThrow();
  });
});
