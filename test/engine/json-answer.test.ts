// A lean route's JSON answer is written by the host itself (src/http/json-answer.ts): the bytes on
// the wire must be those srvx's sendNodeResponse writes for the same response (status line,
// header names and order, content-length, body), which every other route answers with.
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { sendNodeResponse } from 'srvx/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonResponse, writeJsonAnswer } from '../../src/http/json-answer.js';
import { errorResponse } from '../../src/http/host.js';
import { errors } from '../../src/http/errors.js';

const answers: Record<string, () => JsonResponse> = {
  accepted: () => new JsonResponse('{"id":"e1","status":"queued"}', 202, { 'content-type': 'application/json', 'x-request-id': 'req_1' }),
  cors: () =>
    new JsonResponse('{"id":"ü"}', 200, {
      'content-type': 'application/json',
      'x-request-id': 'req_2',
      'access-control-allow-origin': 'https://app.example',
      vary: 'Origin',
    }),
  unauthorized: () => errorResponse(errors.unauthorized(), 'req_3') as JsonResponse,
  rateLimited: () => errorResponse(errors.rateLimited(7), 'req_4') as JsonResponse,
  tooLargeUnread: () => errorResponse(errors.tooLarge(10), 'req_5', true) as JsonResponse,
};

let server: Server;
let port: number;

beforeAll(async () => {
  // /lean/<name> is written by writeJsonAnswer, /srvx/<name> by srvx.
  server = createServer((req, res: ServerResponse) => {
    const [, way, name] = (req.url ?? '').split('/');
    const answer = answers[name]();
    if (way === 'lean') writeJsonAnswer(res, answer);
    else void sendNodeResponse(res, answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The raw answer to one GET on a fresh connection, its Date header taken out. */
function raw(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    let out = '';
    socket.on('data', (chunk: Buffer) => (out += chunk.toString('latin1')));
    socket.on('end', () => resolve(out.replace(/\r\nDate: [^\r]*/, '')));
    socket.on('error', reject);
  });
}

describe('writeJsonAnswer', () => {
  for (const name of Object.keys(answers))
    it(`writes what srvx writes: ${name}`, async () => {
      const [lean, srvx] = await Promise.all([raw(`/lean/${name}`), raw(`/srvx/${name}`)]);
      expect(lean).toMatch(/^HTTP\/1\.1 \d{3} /);
      expect(lean).toBe(srvx);
    });

  it('is a web Response elsewhere, and notes when its headers were handed out (then srvx writes it)', async () => {
    const answer = answers.rateLimited();
    expect(answer).toBeInstanceOf(Response);
    expect(answer.status).toBe(429);
    expect(answer.headersHandedOut).toBe(false);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(answer.headersHandedOut).toBe(true);
    expect(JSON.parse(await answer.text())).toMatchObject({ error: { code: 'rate_limited', request_id: 'req_4' } });
  });
});
