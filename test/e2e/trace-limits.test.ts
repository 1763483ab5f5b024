// Traces at the edges: a parent chain thousands of spans deep, and a trace larger than one
// response carries.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';

interface TraceBody {
  span_count: number;
  spans_returned: number;
  spans_offset: number;
  truncated: boolean;
  next_spans_offset: number | null;
  spans: Array<{ span_id: string }>;
  tree: Array<{ span_id: string; children: unknown[] }>;
  orphan_span_ids: string[];
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

describe('trace limits', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startService();
  });
  afterAll(() => svc.stop());

  const post = async (spans: unknown[]) => {
    const res = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans }) });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { rejected: number }).rejected).toBe(0);
  };

  it('answers a trace whose parent chain is 3,000 spans deep, with the whole chain nested', async () => {
    const trace = hex(16);
    const start = Date.now() - 60_000;
    const ids = Array.from({ length: 3000 }, () => hex(8));
    await post(
      ids.map((id, i) => ({
        trace_id: trace,
        span_id: id,
        parent_span_id: i ? ids[i - 1] : '',
        name: `depth ${i}`,
        start_time: start + i,
        end_time: start + 3000,
      })),
    );
    const res = await svc.api(`/v1/traces/${trace}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as TraceBody;
    expect(body.span_count).toBe(3000);
    expect(body.truncated).toBe(false);
    let depth = 0;
    for (let node = body.tree[0]; node; node = node.children[0] as TraceBody['tree'][0]) depth++;
    expect(depth).toBe(3000);
  });

  it('caps the spans of one response and pages through the rest', async () => {
    const trace = hex(16);
    const start = Date.now() - 60_000;
    const root = hex(8);
    const spans = Array.from({ length: 12_000 }, (_, i) => ({
      trace_id: trace,
      span_id: i === 0 ? root : hex(8),
      parent_span_id: i === 0 ? '' : root,
      name: `op ${i}`,
      start_time: start + i,
      end_time: start + i + 1,
    }));
    await post(spans.slice(0, 6000));
    await post(spans.slice(6000));

    const first = (await (await svc.api(`/v1/traces/${trace}`)).json()) as TraceBody;
    expect(first).toMatchObject({ span_count: 12_000, spans_returned: 10_000, spans_offset: 0, truncated: true, next_spans_offset: 10_000 });
    expect(first.spans).toHaveLength(10_000);
    expect(first.tree).toHaveLength(1);
    expect(first.tree[0].children).toHaveLength(9_999);

    const rest = (await (await svc.api(`/v1/traces/${trace}?spans_offset=10000&spans_limit=5000`)).json()) as TraceBody;
    expect(rest).toMatchObject({ span_count: 12_000, spans_returned: 2000, truncated: false, next_spans_offset: null });
    // Their parent is on the first page: listed at the top, not orphans.
    expect(rest.tree).toHaveLength(2000);
    expect(rest.orphan_span_ids).toEqual([]);
    const seen = new Set([...first.spans, ...rest.spans].map((s) => s.span_id));
    expect(seen.size).toBe(12_000);

    for (const bad of ['spans_limit=0', 'spans_limit=10001', 'spans_offset=-1', 'spans_limit=abc']) {
      const res = await svc.api(`/v1/traces/${trace}?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    }
  });
});
