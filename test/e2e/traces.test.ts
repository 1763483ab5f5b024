// POST /v1/traces and GET /v1/traces/{id} against the real service.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const BASE_MS = Date.now() - 60_000;

interface TraceRecord {
  trace_id: string;
  root_service: string;
  root_span_id: string | null;
  duration_ms: number;
  span_count: number;
  services: string[];
  error_event_ids: string[];
  orphan_span_ids: string[];
  tree: Array<{ span_id: string; orphan?: boolean; children: Array<{ span_id: string; children: unknown[] }> }>;
  spans: Array<Record<string, unknown> & { span_id: string; start_time: number; end_time: number; start_time_unix_nano: string; end_time_unix_nano: string }>;
}

async function postSpans(spans: unknown[], init: { key?: string | null; raw?: string } = {}) {
  const response = await svc.api('/v1/traces', { method: 'POST', body: init.raw ?? JSON.stringify({ spans }), key: init.key });
  return {
    status: response.status,
    body: (await response.json()) as { accepted: number; rejected: number; errors: Array<{ index: number; path: string; message: string }> },
  };
}

async function getTrace(id: string, key?: string): Promise<{ status: number; body: TraceRecord }> {
  const response = await svc.api(`/v1/traces/${id}`, { key });
  return { status: response.status, body: (await response.json()) as TraceRecord };
}

function span(traceId: string, spanId: string, parent: string, startMs: number, endMs: number, extra: Record<string, unknown> = {}) {
  return { trace_id: traceId, span_id: spanId, parent_span_id: parent, name: `op ${spanId.slice(0, 4)}`, start_time: startMs, end_time: endMs, ...extra };
}

describe('POST /v1/traces', () => {
  it('stores a nested trace and returns it as a tree with services, root and duration', async () => {
    const trace = hex(16);
    const [root, child, grandchild, sibling] = [hex(8), hex(8), hex(8), hex(8)];
    const ack = await postSpans([
      span(trace, grandchild, child, BASE_MS + 20, BASE_MS + 40, { service_name: 'db' }),
      span(trace, root, '', BASE_MS, BASE_MS + 100, { service_name: 'web', status: 'ok', kind: 'server' }),
      span(trace, child, root, BASE_MS + 10, BASE_MS + 60, { service_name: 'api' }),
      span(trace, sibling, root, BASE_MS + 70, BASE_MS + 90, { service_name: 'api', status: 'error', status_message: 'boom' }),
    ]);
    expect(ack).toEqual({ status: 202, body: { accepted: 4, rejected: 0, errors: [] } });

    const { status, body } = await getTrace(trace);
    expect(status).toBe(200);
    expect(body).toMatchObject({ trace_id: trace, root_service: 'web', root_span_id: root, duration_ms: 100, span_count: 4, services: ['web', 'api', 'db'] });
    expect(body.spans.map((s) => s.span_id)).toEqual([root, child, grandchild, sibling]);
    expect(body.tree).toHaveLength(1);
    expect(body.tree[0].span_id).toBe(root);
    expect(body.tree[0].children.map((c) => c.span_id)).toEqual([child, sibling]);
    expect(body.tree[0].children[0].children.map((c) => (c as { span_id: string }).span_id)).toEqual([grandchild]);
    const first = body.spans[0];
    expect(first).toMatchObject({ start_time: BASE_MS, end_time: BASE_MS + 100, duration_ms: 100, status: 'ok', kind: 'server', service_name: 'web' });
    expect(first.start_time_unix_nano).toBe(`${BASE_MS}000000`);
    expect(body.spans[3]).toMatchObject({ status: 'error', status_message: 'boom' });
  });

  it('recognizes seconds, milliseconds, microseconds and nanoseconds by magnitude, exactly', async () => {
    const trace = hex(16);
    const s = Math.floor(BASE_MS / 1000);
    const ids = [hex(8), hex(8), hex(8), hex(8)];
    const raw = `{"spans": [
      {"trace_id": "${trace}", "span_id": "${ids[0]}", "name": "s", "start_time": ${s}, "end_time": ${s + 1}},
      {"trace_id": "${trace}", "span_id": "${ids[1]}", "name": "ms", "start_time": ${s * 1000}, "end_time": ${s * 1000 + 1}},
      {"trace_id": "${trace}", "span_id": "${ids[2]}", "name": "us", "start_time": ${s * 1000000 + 7}, "end_time": ${s * 1000000 + 9}},
      {"trace_id": "${trace}", "span_id": "${ids[3]}", "name": "ns", "start_time": ${s}000000123, "end_time": ${s}000000456}
    ]}`;
    expect((await postSpans([], { raw })).body.accepted).toBe(4);
    const { body } = await getTrace(trace);
    const byName = Object.fromEntries(body.spans.map((sp) => [sp.name as string, sp]));
    expect(byName.s.start_time_unix_nano).toBe(`${s}000000000`);
    expect(byName.ms.start_time_unix_nano).toBe(`${s}000000000`);
    expect(byName.us.start_time_unix_nano).toBe(`${s}000007000`);
    expect(byName.ns.start_time_unix_nano).toBe(`${s}000000123`); // beyond 2^53: exact
    expect(byName.ns.end_time_unix_nano).toBe(`${s}000000456`);
    expect(byName.ns.start_time).toBe(s * 1000);
  });

  it('answers partial success: valid spans stored, every problem of the others listed by index', async () => {
    const trace = hex(16);
    const good = hex(8);
    const { status, body } = await postSpans([
      span(trace, good, '', BASE_MS, BASE_MS + 5),
      { trace_id: trace, name: 'no id', start_time: BASE_MS, end_time: BASE_MS + 1 },
      span(trace, hex(8), '', BASE_MS + 10, BASE_MS + 5),
      span(trace, hex(8), '', BASE_MS, BASE_MS + 1, { status: 'fine', attributes: { ok: 1, bad: [{ nested: true }] } }),
      'not a span',
      span(trace, 'not hex but fine_-', 'x'.repeat(65), BASE_MS, BASE_MS + 1),
    ]);
    expect(status).toBe(202);
    expect(body.accepted).toBe(1);
    expect(body.rejected).toBe(5);
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { index: 1, path: 'span_id', message: 'is required' },
        { index: 2, path: 'end_time', message: 'must not be before start_time' },
        { index: 3, path: 'status', message: expect.stringMatching(/unset, ok, error/) },
        { index: 3, path: 'attributes.bad[0]', message: expect.any(String) },
        { index: 4, path: '', message: expect.stringMatching(/span object/) },
        { index: 5, path: 'parent_span_id', message: expect.any(String) },
      ]),
    );
    expect((await getTrace(trace)).body.span_count).toBe(1);
  });

  it('keeps attribute types', async () => {
    const trace = hex(16);
    const attributes = { s: 'x', i: 42, f: 1.5, b: true, ss: ['a', 'b'], is: [1, 2], bs: [true, false] };
    await postSpans([span(trace, hex(8), '', BASE_MS, BASE_MS + 1, { attributes, resource_attributes: { 'service.name': 'from-resource' } })]);
    const { body } = await getTrace(trace);
    expect(body.spans[0].attributes).toEqual(attributes);
    expect(body.spans[0].service_name).toBe('from-resource');
  });

  it('assembles spans of one trace sent in several requests, stores a re-sent span once, and lists orphans', async () => {
    const trace = hex(16);
    const [root, child, orphan] = [hex(8), hex(8), hex(8)];
    await postSpans([span(trace, root, '', BASE_MS, BASE_MS + 50)]);
    await postSpans([span(trace, child, root, BASE_MS + 5, BASE_MS + 10), span(trace, orphan, hex(8), BASE_MS + 20, BASE_MS + 30)]);
    await postSpans([span(trace, child, root, BASE_MS + 5, BASE_MS + 10)]);
    const { body } = await getTrace(trace);
    expect(body.span_count).toBe(3);
    expect(body.orphan_span_ids).toEqual([orphan]);
    expect(body.tree.map((n) => [n.span_id, n.orphan ?? false])).toEqual([
      [root, false],
      [orphan, true],
    ]);
  });

  it('has no root without a root span: root_service is the earliest span service', async () => {
    const trace = hex(16);
    await postSpans([
      span(trace, hex(8), hex(8), BASE_MS + 5, BASE_MS + 6, { service_name: 'late' }),
      span(trace, hex(8), hex(8), BASE_MS, BASE_MS + 1, { service_name: 'early' }),
    ]);
    const { body } = await getTrace(trace);
    expect(body).toMatchObject({ root_span_id: null, root_service: 'early' });
  });

  it('turns span events named exception into error events linked to the trace, once', async () => {
    const trace = hex(16);
    const spanId = hex(8);
    const stack = 'TypeError: x is undefined\n    at totalOf (/app/src/cart.js:12:7)\n    at checkout (/app/src/checkout.js:40:3)';
    const failing = span(trace, spanId, '', BASE_MS, BASE_MS + 10, {
      status: 'error',
      resource_attributes: { 'service.name': 'shop', 'service.version': '2.0.1', 'deployment.environment.name': 'staging' },
      events: [
        {
          name: 'exception',
          time: BASE_MS + 5,
          attributes: { 'exception.type': 'TypeError', 'exception.message': 'x is undefined', 'exception.stacktrace': stack },
        },
      ],
    });
    await postSpans([failing]);
    await postSpans([failing]);
    const { body } = await getTrace(trace);
    expect(body.error_event_ids).toHaveLength(1);
    const event = (await (await svc.api(`/v1/events/${body.error_event_ids[0]}`)).json()) as Record<string, unknown> & {
      exception: { type: string; value: string; stacktrace: Array<{ function: string; lineno: number }> };
      issue_id: string;
    };
    expect(event).toMatchObject({ trace_id: trace, environment: 'staging', release: 'shop@2.0.1' });
    expect(event.exception.type).toBe('TypeError');
    expect(event.exception.value).toBe('x is undefined');
    expect(event.exception.stacktrace.map((f) => [f.function, f.lineno])).toEqual([
      ['checkout', 40],
      ['totalOf', 12],
    ]);
    const issue = await svc.api(`/v1/issues/${event.issue_id}`);
    expect(issue.status).toBe(200);
    const list = (await (await svc.api(`/v1/events?project_id=default&query=trace_id:${trace}`)).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(1);
  });

  it('refuses bodies that are not {spans: [...]}, non-JSON types, too many spans, and unknown traces', async () => {
    const notBatch = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify([1]) });
    expect(notBatch.status).toBe(400);
    expect(((await notBatch.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    const badJson = await svc.api('/v1/traces', { method: 'POST', body: '{"spans": [' });
    expect(badJson.status).toBe(400);
    const text = await svc.api('/v1/traces', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const trace = hex(16);
    const many = Array.from({ length: 10_001 }, () => span(trace, hex(8), '', BASE_MS, BASE_MS + 1));
    const tooMany = await svc.api('/v1/traces', { method: 'POST', body: JSON.stringify({ spans: many }) });
    expect(tooMany.status).toBe(413);
    expect((await getTrace(hex(16))).status).toBe(404);
  });

  it('keeps live and sandbox traces apart', async () => {
    const trace = hex(16);
    await postSpans([span(trace, hex(8), '', BASE_MS, BASE_MS + 1)], { key: svc.testKey });
    expect((await getTrace(trace, svc.testKey)).status).toBe(200);
    expect((await getTrace(trace)).status).toBe(404);
  });
});
