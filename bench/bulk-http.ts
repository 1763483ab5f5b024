// Many requests through the public ingest routes, a fixed number in flight, for loading data:
// refusals under load (429, 503) are retried after a pause, anything else that is not 2xx stops
// the load with the service's answer.
import { Agent, request as httpRequest } from 'node:http';
import { sleep } from './stats.js';

export interface PostManyOptions {
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  requests: number;
  concurrency: number;
  next: () => Buffer;
  /** Called with each 2xx answer's body (e.g. to count skipped envelope items). */
  onAnswer?: (body: string) => void;
  /** Called every ~5 s with the requests done. */
  progress?: (done: number) => void;
}

export async function postMany(options: PostManyOptions): Promise<{ seconds: number; retried: number }> {
  const url = new URL(options.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const post = (body: Buffer) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: options.path, method: 'POST', agent, headers: { ...options.headers, 'content-length': body.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  let issued = 0;
  let done = 0;
  let retried = 0;
  let reported = started;
  const worker = async () => {
    while (issued < options.requests) {
      issued++;
      const body = options.next();
      for (;;) {
        const res = await post(body);
        if (res.status >= 200 && res.status < 300) {
          options.onAnswer?.(res.body);
          break;
        }
        if (res.status !== 429 && res.status !== 503) throw new Error(`POST ${options.path}: ${res.status} ${res.body.slice(0, 300)}`);
        retried++;
        await sleep(100);
      }
      done++;
      if (options.progress && performance.now() - reported > 5000) {
        reported = performance.now();
        options.progress(done);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { seconds: (performance.now() - started) / 1000, retried };
}
