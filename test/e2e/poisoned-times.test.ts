// Issue #10, item 1: times outside 1970-2262 (whose nanoseconds do not fit the signed 64-bit
// integers they are stored as) were acknowledged, then broke DuckDB's indexing ("bigint out of
// int64 range") for what came after. Each route now rejects them per item, and what is posted
// after them reads back.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportTraceServiceRequest, ExportTraceServiceResponse } from '../../src/otlp/decode/schema.js';
import { expectError } from '../support/http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const RANGE = 'must be between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16.854Z';

interface BatchResult {
  accepted: number;
  rejected: number;
  errors: Array<{ index: number; path: string; message: string }>;
}

async function traceStatus(traceId: string): Promise<number> {
  return (await svc.api(`/v1/traces/${traceId}`)).status;
}

/** A span that is fine, posted after the poisoned ones: it must read back. */
async function postGoodSpan(): Promise<string> {
  const trace = hex(16);
  const now = Date.now();
  const response = await svc.api('/v1/traces', {
    method: 'POST',
    body: JSON.stringify({ spans: [{ trace_id: trace, span_id: hex(8), name: 'after', start_time: now - 5, end_time: now }] }),
  });
  expect(((await response.json()) as BatchResult).accepted).toBe(1);
  return trace;
}

function otlpJsonSpan(traceId: string, start: string, end: string): Record<string, unknown> {
  return { traceId, spanId: hex(8), name: 'otlp', startTimeUnixNano: start, endTimeUnixNano: end };
}

async function postOtlp(body: Uint8Array | string, type: string): Promise<Response> {
  return fetch(`${svc.otlpUrl}/v1/traces`, { method: 'POST', body, headers: { 'content-type': type, authorization: `Bearer ${svc.liveKey}` } });
}

describe('times beyond int64 nanoseconds', () => {
  it('POST /v1/traces rejects them per span (beyond 2262 in any unit, fractions), keeps the good span, and reads back later spans', async () => {
    const trace = hex(16);
    const now = Date.now();
    const span = (start: unknown, end: unknown, extra: Record<string, unknown> = {}) => ({
      trace_id: trace,
      span_id: hex(8),
      name: 'x',
      start_time: start,
      end_time: end,
      ...extra,
    });
    // A bare 19-digit number in the body: JSON.stringify of a bigint is not possible, so splice it in.
    const body = JSON.stringify({
      spans: [
        span('POISON_NS', 'POISON_NS'),
        span(5e16, 5e16),
        span(now - 1.5, now),
        span(now - 10, now, { events: [{ name: 'late', time: '18446744073709551615' }] }),
        span(now - 10, now),
      ],
    }).replaceAll('"POISON_NS"', '9300000000000000000');
    const response = await svc.api('/v1/traces', { method: 'POST', body });
    expect(response.status).toBe(202);
    const result = (await response.json()) as BatchResult;
    expect(result).toMatchObject({ accepted: 1, rejected: 4 });
    expect(result.errors).toEqual([
      { index: 0, path: 'start_time', message: `${RANGE}; 9300000000000000000 read as nanoseconds is after 2262` },
      { index: 0, path: 'end_time', message: `${RANGE}; 9300000000000000000 read as nanoseconds is after 2262` },
      { index: 1, path: 'start_time', message: `${RANGE}; 50000000000000000 read as microseconds is after 2262` },
      { index: 1, path: 'end_time', message: `${RANGE}; 50000000000000000 read as microseconds is after 2262` },
      { index: 2, path: 'start_time', message: expect.stringMatching(/^must be an integer, got \d+\.5 \(times are integers/) },
      { index: 3, path: 'events[0].time', message: `${RANGE}; 18446744073709551615 read as nanoseconds is after 2262` },
    ]);
    expect(await traceStatus(trace)).toBe(200);
    expect(await traceStatus(await postGoodSpan())).toBe(200);
  });

  it('OTLP protobuf rejects startTimeUnixNano >= 2^63 per span (partial success), and later spans read back', async () => {
    const [poisoned, good] = [hex(16), hex(16)];
    const now = BigInt(Date.now()) * 1_000_000n;
    const span = (traceId: string, start: bigint, end: bigint) => ({
      traceId: Buffer.from(traceId, 'hex'),
      spanId: randomBytes(8),
      name: 'proto',
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: end.toString(),
    });
    const body = ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject({
        resourceSpans: [{ scopeSpans: [{ spans: [span(poisoned, 2n ** 63n, 2n ** 63n + 5n), span(good, now - 1000n, now)] }] }],
      }),
    ).finish();
    const response = await postOtlp(body, 'application/x-protobuf');
    expect(response.status).toBe(200);
    const answer = ExportTraceServiceResponse.decode(new Uint8Array(await response.arrayBuffer())) as unknown as {
      partialSuccess?: { rejectedSpans: { toString(): string }; errorMessage: string };
    };
    expect(answer.partialSuccess?.rejectedSpans.toString()).toBe('1');
    expect(answer.partialSuccess?.errorMessage).toContain('span 0: start_time must be between 1970');
    expect(await traceStatus(poisoned)).toBe(404);
    expect(await traceStatus(good)).toBe(200);
    expect(await traceStatus(await postGoodSpan())).toBe(200);
  });

  it('OTLP JSON rejects times beyond int64 per span (partial success), and later spans read back', async () => {
    const [poisoned, good] = [hex(16), hex(16)];
    const now = `${Date.now()}000000`;
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                otlpJsonSpan(poisoned, '9300000000000000000', '9300000000000000001'),
                otlpJsonSpan(poisoned, now, '18446744073709551615'),
                otlpJsonSpan(good, now, now),
              ],
            },
          ],
        },
      ],
    });
    const response = await postOtlp(body, 'application/json');
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } };
    expect(answer.partialSuccess?.rejectedSpans).toBe('2');
    expect(answer.partialSuccess?.errorMessage).toMatch(/span 0: start_time must be between 1970.*span 1: end_time must be between 1970/);
    expect(await traceStatus(poisoned)).toBe(404);
    expect(await traceStatus(good)).toBe(200);
    expect(await traceStatus(await postGoodSpan())).toBe(200);
  });

  it('POST /v1/events rejects a timestamp outside 1970-2262 with validation_failed at timestamp, and later events read back', async () => {
    for (const timestamp of ['2263-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '1969-12-31T23:59:59Z', '0001-01-01T00:00:00Z']) {
      const id = randomUUID();
      const response = await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp })) });
      const body = await expectError(response, 400, 'validation_failed');
      expect(body.error.details).toEqual([{ path: 'timestamp', message: RANGE }]);
      expect((await svc.api(`/v1/events/${id}`)).status).toBe(404);
    }
    const id = randomUUID();
    expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id, timestamp: new Date().toISOString() })) })).status).toBe(202);
    expect((await svc.api(`/v1/events/${id}`)).status).toBe(200);
  });
});
