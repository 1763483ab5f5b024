// A slow spot in front of the loopback S3 server (test/support/s3.ts): an HTTP proxy on loopback
// that forwards every request to s3rver as it is (the SigV4 signature covers the Host header,
// which is passed through unchanged), except the first one `hold` picks: that request is taken in
// and never forwarded nor answered, so its upload stays in flight for as long as the test wants —
// long enough to SIGKILL the process that sent it. Nothing of a held request reaches s3rver, which
// is what S3 guarantees for a request cut short (an object is stored only from a whole request);
// s3rver itself writes a PUT's body in place as it arrives, so forwarding half a body would show
// a truncated object that S3 never would.
import { createServer, request, Agent, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3Request {
  method: string;
  /** The object key with the bucket's path (path-style): `/<bucket>/<prefix>/events/…`, decoded. */
  path: string;
  /** The query (`uploadId=…&partNumber=1`, `uploads`, …). */
  query: URLSearchParams;
}

export interface HeldRequest extends S3Request {
  /** Body bytes the proxy had taken in when the request was held. */
  receivedBytes: number;
  /** Resolves when the sender's connection closes (the process that sent it died). */
  closed: Promise<void>;
}

export interface S3Proxy {
  endpoint: string;
  /** The held request, once the proxy holds it. */
  held: Promise<HeldRequest>;
  /** Every forwarded request with s3rver's status, in order of the answers. */
  forwarded: Array<S3Request & { status: number }>;
  stop(): Promise<void>;
}

export async function startS3Proxy(target: string, hold: (request: S3Request) => boolean): Promise<S3Proxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const forwarded: S3Proxy['forwarded'] = [];
  let holding = false;
  let onHeld: (held: HeldRequest) => void = () => undefined;
  const held = new Promise<HeldRequest>((resolve) => (onHeld = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const described: S3Request = { method: req.method ?? 'GET', path: decodeURIComponent(url.pathname), query: url.searchParams };
    if (!holding && hold(described)) {
      holding = true;
      const closed = new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
      let receivedBytes = 0;
      const take = (chunk: Buffer) => {
        receivedBytes += chunk.length;
        // Some of the body is in: stop reading, so the sender's upload stays mid-way.
        req.pause();
        onHeld({ ...described, receivedBytes, closed });
      };
      req.once('data', take);
      // A request without a body (or whose body was all sent before the first read): held all the same.
      req.once('end', () => onHeld({ ...described, receivedBytes, closed }));
      return;
    }
    const headers: IncomingHttpHeaders = { ...req.headers };
    // Unsigned, and Node answers 100-continue itself: the upstream request sends its body at once.
    delete headers.expect;
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      forwarded.push({ ...described, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.on('aborted', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    held,
    forwarded,
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
