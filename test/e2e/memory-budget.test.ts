// Issue #10, item 6: the in-flight budget bounds what concurrent uploads take while they are read
// and parsed, not only once their items are admitted. Each request reserves its body's bytes times
// MEMORY_PER_BODY_BYTE before the body is read and holds them until its items are durable; past
// the budget the answer is 503 + Retry-After, before anything is read. Uploads here send half their
// body, wait, then the rest, so that they are all being read at once.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEMORY_PER_BODY_BYTE } from '../../src/http/intake.js';
import { packageRoot } from '../../src/paths.js';
import { expectError } from '../support/http.js';
import { openRaw, portOf, type RawResponse } from '../support/raw-http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

const BUDGET = 1024 * 1024;
const UPLOADS = 8;
const BODY = 100 * 1024; // three at once would take 3 * 100 KiB * 4 > 1 MiB
const FITTING = Math.floor(BUDGET / (BODY * MEMORY_PER_BODY_BYTE));

let svc: TestService;
beforeAll(async () => {
  const yaml = readFileSync(join(packageRoot, 'config/default.yaml'), 'utf8')
    .replace('      exporters: [duckdb]\n    traces:', `      exporters: [duckdb]\n      max_in_flight: { bytes: ${BUDGET} }\n    traces:`)
    .replace(/( {4}traces:\n(?: {6}.*\n)*? {6}exporters: \[duckdb(?:, exceptions)?\])/, `$1\n      max_in_flight: { bytes: ${BUDGET} }`);
  expect(yaml.match(/max_in_flight/g)).toHaveLength(2);
  svc = await startService({ yaml });
});
afterAll(() => svc.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/**
 * Starts every upload and sends half of each body; once every upload but the two that fit has
 * been refused (the refusals come before any body is read), sends the rest. The answers, in order.
 */
async function uploadTogether(port: number, path: string, bodies: string[], type = 'application/json'): Promise<RawResponse[]> {
  let answered = 0;
  const uploads = bodies.map((body) => {
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.liveKey}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const half = Math.floor(body.length / 2);
    const upload = openRaw(port, head + body.slice(0, half));
    void upload.response.then(() => answered++);
    return { ...upload, rest: body.slice(half) };
  });
  for (let waited = 0; answered < UPLOADS - FITTING && waited < 10_000; waited += 20) await sleep(20);
  await sleep(100); // time for a third acceptance, were there one
  for (const { socket, rest } of uploads) if (!socket.destroyed) socket.write(rest);
  const answers = await Promise.all(uploads.map((u) => u.response));
  for (const { socket } of uploads) socket.destroy();
  return answers;
}

async function expectBounded(answers: RawResponse[]): Promise<void> {
  const statuses = answers.map((a) => a.status);
  expect(
    statuses.every((s) => s === 202 || s === 200 || s === 503),
    statuses.join(','),
  ).toBe(true);
  // Two fit in the budget at once (2 * 100 KiB * 4 < 1 MiB); the others are refused before their body is read.
  expect(statuses.filter((s) => s !== 503).length, statuses.join(',')).toBe(FITTING);
  for (const refused of answers.filter((a) => a.status === 503)) {
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-request-id']).toMatch(/^req_/);
  }
}

function padded(text: string, size: number): string {
  return text.replace('"PAD"', JSON.stringify('x'.repeat(size - text.length)));
}

describe('concurrent uploads beyond the in-flight budget', () => {
  it('POST /v1/events: some are refused with 503 overloaded, the others are stored and read back', async () => {
    const ids = Array.from({ length: UPLOADS }, () => randomUUID());
    const bodies = ids.map((id) => padded(JSON.stringify(fullEvent({ id, contexts: { pad: { blob: 'PAD' } } })), BODY));
    const answers = await uploadTogether(portOf(svc.baseUrl), '/v1/events', bodies);
    await expectBounded(answers);
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 503) await expectError(new Response(answer.body, { status: 503, headers: answer.headers }), 503, 'overloaded');
      else expect((await svc.api(`/v1/events/${ids[i]}`)).status).toBe(200);
    }
    const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
    const refused = answers.filter((a) => a.status === 503).length;
    expect(metrics).toContain(`faultline_receiver_refused_items_total{receiver="http_api",signal="events",reason="overloaded"} ${refused}`);
    expect(metrics).toMatch(/faultline_pipeline_in_flight_bytes\{pipeline="events"\} 0/);
    // Once the uploads are settled there is room again.
    expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent()) })).status).toBe(202);
  });

  it('POST /v1/traces: the same, per request', async () => {
    const traces = Array.from({ length: UPLOADS }, () => hex(16));
    const now = Date.now();
    const bodies = traces.map((trace) =>
      padded(
        JSON.stringify({ spans: [{ trace_id: trace, span_id: hex(8), name: 'op', start_time: now - 5, end_time: now, attributes: { pad: 'PAD' } }] }),
        BODY,
      ),
    );
    const answers = await uploadTogether(portOf(svc.baseUrl), '/v1/traces', bodies);
    await expectBounded(answers);
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 503) await expectError(new Response(answer.body, { status: 503, headers: answer.headers }), 503, 'overloaded');
      else expect((await svc.api(`/v1/traces/${traces[i]}`)).status).toBe(200);
    }
  });

  it('OTLP: refused with 503 and Retry-After (google.rpc.Status UNAVAILABLE), the others stored', async () => {
    const traces = Array.from({ length: UPLOADS }, () => hex(16));
    const now = `${Date.now()}000000`;
    const bodies = traces.map((traceId) =>
      padded(
        JSON.stringify({
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId,
                      spanId: hex(8),
                      name: 'op',
                      startTimeUnixNano: now,
                      endTimeUnixNano: now,
                      attributes: [{ key: 'pad', value: { stringValue: 'PAD' } }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
        BODY,
      ),
    );
    const answers = await uploadTogether(portOf(svc.otlpUrl), '/v1/traces', bodies);
    await expectBounded(answers);
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 503) expect(JSON.parse(answer.body)).toEqual({ code: 14, message: 'over the in-flight budget; retry later' });
      else expect((await svc.api(`/v1/traces/${traces[i]}`)).status).toBe(200);
    }
  });
});
