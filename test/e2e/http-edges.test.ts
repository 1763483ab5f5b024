// Issue #10, item 4: the error contract at the edges of HTTP, on the API's port and on OTLP's.
// What Node's HTTP parser refuses, clients that go away mid-upload, bodies that stall, charsets
// other than UTF-8. Raw sockets send what no HTTP client would.
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
  for (let i = 0; i < 500; i++) {
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

describe('a client that disconnects mid-upload', () => {
  const cases = [
    ['POST /v1/events', () => portOf(svc.baseUrl), '/v1/events', 'http_api', 'events'],
    ['OTLP', () => portOf(svc.otlpUrl), '/v1/traces', 'otlp', 'traces'],
  ] as const;

  it.each(cases)('%s: counted as a client abort (499), never a 5xx, and the service still answers', async (_name, port, path, receiver, signal) => {
    const refused = `receiver="${receiver}",signal="${signal}",reason="client_abort"`;
    const before = sample(await metrics(), 'faultline_receiver_refused_items_total', refused);
    const { socket, response } = openRaw(
      port(),
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.liveKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"timestamp": "2026-`,
    );
    response.catch(() => undefined); // no answer comes: the socket is gone
    await sleep(100);
    socket.destroy();
    await eventually(async () => sample(await metrics(), 'faultline_receiver_refused_items_total', refused) > before, 'the abort to be counted');
    const text = await metrics();
    expect(sample(text, 'faultline_http_request_duration_seconds_count', `route="${path}",status="499"`)).toBeGreaterThan(0);
    expect(text).not.toMatch(/faultline_http_request_duration_seconds_count\{[^}]*status="5\d\d"/);
    expect(text).not.toMatch(/faultline_receiver_refused_items_total\{[^}]*reason="(overloaded|failed)"/);
    const id = randomUUID();
    expect((await svc.api('/v1/events', { method: 'POST', body: JSON.stringify(fullEvent({ id })) })).status).toBe(202);
    expect((await svc.api(`/v1/events/${id}`)).status).toBe(200);
  });
});

describe('bodies read as UTF-8 only', () => {
  it('POST /v1/traces refuses charset=utf-16 with 415 unsupported_media_type', async () => {
    const res = await svc.api('/v1/traces', { method: 'POST', body: '{"spans": []}', headers: { 'content-type': 'application/json; charset=utf-16' } });
    await expectError(res, 415, 'unsupported_media_type');
  });

  it('OTLP/JSON refuses charset=iso-8859-1 with 415, and takes charset=utf-8', async () => {
    const post = (type: string) =>
      fetch(`${svc.otlpUrl}/v1/traces`, {
        method: 'POST',
        body: '{"resourceSpans": []}',
        headers: { 'content-type': type, authorization: `Bearer ${svc.liveKey}` },
      });
    const refused = await post('application/json; charset=iso-8859-1');
    expect(refused.status).toBe(415);
    expect(((await refused.json()) as { message: string }).message).toBe('charset iso-8859-1 is not supported; send UTF-8 (or no charset)');
    expect((await post('application/json; charset=utf-8')).status).toBe(200);
  });
});

describe('a body that stalls', () => {
  let slow: TestService;
  beforeAll(async () => {
    slow = await startService({ env: { FAULTLINE_BODY_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => slow.stop());

  const request = (path: string, key: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"spans": [`;

  it('POST /v1/events and /v1/traces: 408 request_timeout after limits.body_timeout_ms, and the connection closes', async () => {
    for (const path of ['/v1/events', '/v1/traces']) {
      const started = Date.now();
      const raw = await rawRequest(portOf(slow.baseUrl), request(path, slow.liveKey));
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(raw.closed).toBe(true);
      expect(raw.headers.connection).toBe('close');
      const body = await expectError(asResponse(raw), 408, 'request_timeout');
      expect(body.error.message).toBe('the body did not arrive within 1000 ms; send it faster or in smaller requests');
    }
    const text = await metrics(slow);
    expect(sample(text, 'faultline_receiver_refused_items_total', 'receiver="http_api",signal="events",reason="timeout"')).toBe(1);
    expect(sample(text, 'faultline_receiver_refused_items_total', 'receiver="http_api",signal="traces",reason="timeout"')).toBe(1);
  });

  it('OTLP: 408 with a google.rpc.Status and a request id', async () => {
    const raw = await rawRequest(portOf(slow.otlpUrl), request('/v1/traces', slow.liveKey));
    expect(raw.status).toBe(408);
    expect(raw.closed).toBe(true);
    expect(raw.headers['x-request-id']).toMatch(/^req_/);
    expect(JSON.parse(raw.body)).toEqual({ code: 3, message: 'the body did not arrive within 1000 ms; send it faster or in smaller requests' });
    expect(sample(await metrics(slow), 'faultline_receiver_refused_items_total', 'receiver="otlp",signal="traces",reason="timeout"')).toBe(1);
  });

  it('takes a body that arrives in time, in pieces', async () => {
    const id = randomUUID();
    const body = JSON.stringify(fullEvent({ id }));
    const { socket, response } = openRaw(
      portOf(slow.baseUrl),
      `POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${slow.liveKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 50)}`,
    );
    await sleep(100);
    socket.write(body.slice(50));
    expect((await response).status).toBe(202);
    socket.destroy();
  });
});

describe('POST /v1/events, served lean from node:http (issue #18)', () => {
  const count = (text: string, status: number) =>
    sample(text, 'faultline_http_request_duration_seconds_count', `route="/v1/events",status="${status}",method="POST"`);

  it('answers as through h3: the request id echoed, the latency recorded under its route, errors in the one body', async () => {
    const before = await metrics();
    const ok = await svc.api('/v1/events?project_id=', { method: 'POST', headers: { 'x-request-id': 'lean-1' }, body: JSON.stringify(fullEvent()) });
    expect(ok.status).toBe(202);
    expect(ok.headers.get('x-request-id')).toBe('lean-1');
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(await ok.json()).toMatchObject({ status: 'queued', id: expect.any(String) });
    const bad = await svc.api('/v1/events', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    const body = await expectError(bad, 415, 'unsupported_media_type');
    expect(body.error.request_id).toBe(bad.headers.get('x-request-id'));
    await expectError(await svc.api('/v1/events', { method: 'POST', key: null, body: '{}' }), 401, 'unauthorized');
    const after = await metrics();
    expect(count(after, 202) - count(before, 202)).toBe(1);
    expect(count(after, 415) - count(before, 415)).toBe(1);
  });

  it('leaves other methods and paths to h3: 405 with Allow, 404 for a neighbour', async () => {
    const put = await svc.api('/v1/events', { method: 'PUT', body: '{}' });
    await expectError(put, 405, 'method_not_allowed');
    await expectError(await svc.api('/v1/eventsx', { method: 'POST', body: '{}' }), 404, 'not_found');
  });
});
