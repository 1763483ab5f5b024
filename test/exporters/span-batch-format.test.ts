// The span batch document (exporters/duckdb/span-batch.ts): each span sliced out by its index is
// the per-span document, byte for byte; references read back what they were made from.
import { describe, expect, it } from 'vitest';
import { parseSpanRef, ParsedSpanBatch, spanBatchIntake, spanRefText, toSpanBatches } from '../../exporters/duckdb/span-batch.js';
import type { Item } from '../../src/engine/item.js';
import { spanDocumentJson } from '../../src/records/span-document.js';
import { validateSpan, SPAN_LIMIT_DEFAULTS } from '../../src/records/span-validation/validate-span.js';
import type { Span } from '../../src/records/span.js';

const tenant = { orgId: 'o', projectId: 'p1', dataset: 'live' as const };

function span(i: number, extra: Record<string, unknown> = {}): Span {
  const result = validateSpan(
    {
      trace_id: 'ab'.repeat(16),
      span_id: i.toString(16).padStart(16, '0'),
      name: i % 2 ? `naïve 😀 ${i}` : `op ${i}`,
      start_time: 1_700_000_000_000 + i,
      end_time: 1_700_000_000_010 + i,
      attributes: { i, text: 'line\nbreak "quoted" \u2028', list: [1, 'two'] },
      ...extra,
    },
    SPAN_LIMIT_DEFAULTS,
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return { ...result.span, project_id: 'p1', received_at: '2026-11-27T10:00:00.000Z' } as Span;
}

const item = (data: Span): Item<Span> => ({ data, tenant, receivedAt: 1, size: 512 });

describe('span batch documents', () => {
  it('slice out each span as its own document, and rebuild every row after a restart', () => {
    const spans = Array.from({ length: 25 }, (_, i) => span(i, i === 3 ? { events: [{ name: 'e', time: 1_700_000_000_005, attributes: { k: 'v' } }] } : {}));
    const [batch] = toSpanBatches(spans.map(item));
    expect(batch.data.newestMs).toBe(1_700_000_000_024);
    const parsed = ParsedSpanBatch.parse(batch.data.doc as string);
    expect(parsed.length).toBe(25);
    spans.forEach((s, i) => expect(parsed.span(i)).toBe(spanDocumentJson(s)));
    expect(parsed.span(25)).toBeUndefined();
    expect(parsed.span(-1)).toBeUndefined();
    const rebuilt = spanBatchIntake.fromDocument(batch.data.doc as string);
    expect(rebuilt.rows.map((r) => [r.span_id, r.start_time_unix_nano, r.received_at])).toEqual(
      spans.map((s) => [s.span_id, s.start_time_unix_nano, '2026-11-27T10:00:00.000Z']),
    );
  });

  it('makes one batch per project and time of receipt', () => {
    const other = { ...span(1), received_at: '2026-11-27T10:00:01.000Z' };
    const batches = toSpanBatches([item(span(0)), item(other), item(span(2)), { ...item(span(3)), tenant: { ...tenant, projectId: 'p2' } }]);
    expect(batches.map((b) => [b.tenant.projectId, b.data.rows.length])).toEqual([
      ['p1', 2],
      ['p1', 1],
      ['p2', 1],
    ]);
    expect(new Set(batches.map((b) => b.data.id)).size).toBe(3);
  });

  it('reads references back, and nothing else as one', () => {
    expect(parseSpanRef(spanRefText(1_700_000_000_024, 'mbk1x2.3f', 9_999))).toEqual({ newestMs: 1_700_000_000_024, id: 'mbk1x2.3f', index: 9_999 });
    for (const doc of ['', '{"trace_id":"x"}', '@sb/1/abc', '@sb/1/ABC/1', `@sb/1/${'a'.repeat(100)}/1`, 42, null]) expect(parseSpanRef(doc)).toBeUndefined();
  });
});
