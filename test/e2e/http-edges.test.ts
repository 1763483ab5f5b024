// Issue #10, item 4: the error contract at the edges of HTTP, on the API's port and on OTLP's.
// What Node's HTTP parser refuses. Raw sockets send what no HTTP client would.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/http.js';
import { openRaw, portOf, rawRequest, type RawResponse } from '../support/raw-http.js';
import { fullEvent, startService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The raw answer as a fetch Response, for expectError. */
function asResponse(raw: RawResponse): Response {
  return new Response(raw.body, { status: raw.status, headers: raw.headers });
}

async function metrics(service: TestService = svc): Promise<string> {
  return (await fetch(`${service.baseUrl}/metrics`)).text();
}

/** The value of one sample of /metrics, 0 when absent. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((label) => l.includes(label)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const listeners = [
  ['the API port', () => portOf(svc.baseUrl)],
  ['the OTLP port', () => portOf(svc.otlpUrl)],
] as const;

describe.each(listeners)("requests Node's HTTP parser refuses, on %s", (_name, port) => {
  const expectRefusal = async (request: string, status: number, code: string) => {
    const raw = await rawRequest(port(), request);
    expect(raw.headers.connection).toBe('close');
    expect(raw.closed).toBe(true);
    return expectError(asResponse(raw), status, code);
  };

  it('a URL longer than the header limit: 431 with the error body and a request id, and the connection closes', async () => {
    const body = await expectRefusal(`GET /v1/events?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'request_header_fields_too_large');
    expect(body.error.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('headers larger than the limit: 431', async () => {
    await expectRefusal(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`, 431, 'request_header_fields_too_large');
  });

  it('an unknown method: 400 bad_request', async () => {
    const body = await expectRefusal('BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'bad_request');
    expect(body.error.message).toMatch(/^the request is not valid HTTP\/1\.1: /);
  });

  it.each([
    ['a Content-Length that is no number', 'Content-Length: lots\r\n'],
    ['Content-Length beside Transfer-Encoding', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n'],
    ['a malformed chunk', 'Transfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('bad framing (%s): 400 bad_request', async (_what, framing) => {
    await expectRefusal(`POST /v1/traces HTTP/1.1\r\nHost: x\r\n${framing}\r\n`, 400, 'bad_request');
  });

  it('are counted by status and code, and the service still answers', async () => {
    await rawRequest(port(), 'BREW / HTTP/1.1\r\n\r\n');
    const text = await metrics();
    expect(sample(text, 'faultline_http_unparsed_requests_total', 'status="400",code="bad_request"')).toBeGreaterThan(0);
    expect(sample(text, 'faultline_http_unparsed_requests_total', 'status="431",code="request_header_fields_too_large"')).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${port()}/v1/traces`, { method: 'OPTIONS' })).status).toBeLessThan(500);
  });
});
