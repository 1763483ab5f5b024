// A real local HTTP receiver for webhook and Slack notifications (node:http on 127.0.0.1): it
// records every request and answers with the statuses it is told to, in order (then 200).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  status: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** Statuses for the next requests to `path`, in order; after them every request gets 200. */
  respond(path: string, ...statuses: number[]): void;
  /** Resolves once `count` requests (matching `filter`) have arrived. */
  waitFor(count: number, filter?: (r: Received) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const requests: Received[] = [];
  const statuses = new Map<string, number[]>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = statuses.get(req.url ?? '/')?.shift() ?? 200;
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as is
      }
      requests.push({ path: req.url ?? '/', headers: req.headers, body, json, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    respond: (path, ...next) => statuses.set(path, [...(statuses.get(path) ?? []), ...next]),
    waitFor: (count, filter = () => true, timeoutMs = 15_000) => waitForRecorded(requests, waiters, count, filter, timeoutMs, 'requests'),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `count` of `recorded` match `filter`; each `waiters` entry is called when something is recorded. */
export function waitForRecorded<T>(
  recorded: T[],
  waiters: Set<() => void>,
  count: number,
  filter: (item: T) => boolean,
  timeoutMs: number,
  noun: string,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const matching = recorded.filter(filter);
      if (matching.length < count) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(matching);
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`expected ${count} ${noun}, got ${recorded.filter(filter).length}`));
    }, timeoutMs);
    waiters.add(check);
    check();
  });
}
