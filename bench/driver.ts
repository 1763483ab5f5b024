// The load driver: autocannon (raw keep-alive sockets, prebuilt request buffers) at a fixed number
// of connections, each request's body taken from `nextBody`. Latencies are recorded per response
// from autocannon's own timer (hrtime from write to the last byte), exactly, not bucketed.
import autocannon, { type AutocannonResult } from 'autocannon';
import { Samples, sleep } from './stats.js';

/**
 * After a warm-up: autocannon stops by closing its sockets, but the requests it had in flight are
 * still being processed by the server; wait about as long as the slowest of them took, so they do
 * not count against the in-flight budget of the measured run.
 */
export async function settle(warmup: DriveResult): Promise<void> {
  await sleep(Math.min(5000, Math.max(100, 1.5 * (warmup.latencyAll.max || 0))));
}

export interface DriveOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  headers: Record<string, string>;
  nextBody: () => Buffer;
  /** Requests in flight per connection (1: one at a time, as SDKs send). */
  pipelining?: number;
  /** Requests per second over all connections (closed loop when unset). */
  overallRate?: number;
  /** Seconds before a request counts as a timeout. */
  timeout?: number;
}

export interface DriveResult {
  seconds: number;
  requests: number;
  ok: number;
  /** Responses outside 2xx, by status. */
  statuses: Record<string, number>;
  non2xx: number;
  /** Socket errors and timeouts. */
  socketErrors: number;
  timeouts: number;
  /** 2xx responses per second. */
  okPerSecond: number;
  /** Latency of 2xx responses, ms. */
  latency: { p50: number; p99: number; max: number; n: number };
  /** Latency of every response, ms. */
  latencyAll: { p50: number; p99: number; max: number; n: number };
}

export function drive(options: DriveOptions): Promise<DriveResult> {
  const ok = new Samples();
  const all = new Samples();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: options.pipelining ?? 1,
        duration: options.duration,
        timeout: options.timeout ?? 30,
        overallRate: options.overallRate,
        requests: [
          {
            method: 'POST',
            headers: options.headers,
            // Builds each request afresh, so every request carries the next body.
            setupRequest: (request) => ({ ...request, body: options.nextBody() }),
          },
        ],
      },
      (error: Error | null, result: AutocannonResult) => {
        if (error) return reject(error);
        const statuses: Record<string, number> = {};
        let total = 0;
        let okCount = 0;
        for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
          total += count;
          if (status.startsWith('2')) okCount += count;
          else statuses[status] = count;
        }
        const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
        resolve({
          seconds,
          requests: total,
          ok: okCount,
          statuses,
          non2xx: total - okCount,
          socketErrors: result.errors,
          timeouts: result.timeouts,
          okPerSecond: okCount / seconds,
          latency: ok.summary(),
          latencyAll: all.summary(),
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      all.add(responseTime);
      if (statusCode >= 200 && statusCode < 300) ok.add(responseTime);
    });
  });
}
