// Micro-bench for issue #30: what the lean HTTP path itself costs per request, apart from the
// pipelines. In this process: the service's HTTP host (src/http/host.ts) serving the real
// `POST /v1/events` route (authentication by key, rate limit, request id, reservation, body read
// and parse, latency metric, the 202 written) over a consumer that accepts every item at once, and
// beside it a bare node:http server that reads the same body, parses it and answers (what
// bench/baseline-server.ts does). A child process offers the bench's SDK-like events (~6 KB) at
// `--rate` per second over 32 keep-alive connections, to one server and then the other, round
// after round; this process's CPU (all threads) per answered request is printed for each, with the
// median of the rounds.
//
//   npx tsc -p bench/tsconfig.json && node dist/bench/micro/lean-http.js [--rate 2000] [--seconds 4] [--rounds 5] [--only lean|bare]
//
// `--only lean` loads the service's host alone (to profile it: node --cpu-prof ...).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { catalogOf } from '../../extensions/catalog/index.js';
import { eventIngestRoute } from '../../receivers/http-api/routes/events.js';
import { defaultSettings, startExtensionHost } from '../../src/extension-host.js';
import { defaultRegistry } from '../../src/components.js';
import { authenticatorOf } from '../../extensions/catalog/index.js';
import { HttpHost } from '../../src/http/host.js';
import { VERSION } from '../../src/version.js';
import { sdkEventSets } from '../payloads.js';
import { tempDir } from '../service.js';

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

if (process.argv[2] === '--child') await offer(process.argv[3], process.argv[4], Number(process.argv[5]), Number(process.argv[6]));
else await main();

/** The load generator (child): `rate` single-event POSTs a second for `seconds`; prints how many got a 2xx. */
async function offer(url: string, authorization: string, rate: number, seconds: number): Promise<void> {
  const bodies = sdkEventSets(2000).single;
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const target = new URL(url);
  let ok = 0;
  const post = () =>
    new Promise<void>((resolve) => {
      const body = bodies.nextBody();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if ((res.statusCode ?? 500) < 300) ok++;
            resolve();
          });
        },
      );
      req.on('error', () => resolve());
      req.end(body);
    });
  const start = performance.now();
  const inflight: Array<Promise<void>> = [];
  for (let n = 0; n < rate * seconds; n++) {
    const wait = start + (n * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inflight.push(post());
  }
  await Promise.all(inflight);
  agent.destroy();
  process.stdout.write(`${ok}\n`);
}

/** This process's CPU µs per answered request while the child loads `url`. */
async function cpuPerRequest(url: string, authorization: string, rate: number, seconds: number): Promise<number> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', url, authorization, String(rate), String(seconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const cpu0 = process.cpuUsage();
  await new Promise((resolve) => child.on('exit', resolve));
  const cpu = process.cpuUsage(cpu0);
  const ok = Number(out.trim());
  if (!(ok > 0)) throw new Error(`no request was answered with a 2xx by ${url}`);
  return (cpu.user + cpu.system) / ok;
}

/** The bare floor: read the body, JSON.parse it, answer a small JSON (bench/baseline-server.ts). */
function bareServer(): Promise<Server> {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = `{"id":"${(n++).toString(16).padStart(32, '0')}","status":"queued"}`;
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main(): Promise<void> {
  const rate = Number(arg('rate', '2000'));
  const seconds = Number(arg('seconds', '4'));
  const rounds = Number(arg('rounds', '5'));
  const settings = defaultSettings(tempDir('lean-http-'), { auth: { bootstrap: false } });
  const opened = await startExtensionHost({ registry: defaultRegistry(), types: ['catalog'], settings });
  const { host } = opened;
  const keys = await catalogOf(host).bootstrap();
  if (!keys) throw new Error('the catalog was not empty');
  const http = new HttpHost({
    host: '127.0.0.1',
    port: 0,
    auth: authenticatorOf(host),
    metrics: host.metrics,
    logger: host.logger,
    rateLimit: { requests_per_second: 0, burst: 0 },
    version: VERSION,
  });
  // Items are accepted as they come: the pipelines' own cost is measured elsewhere.
  const consumer = { consume: async () => undefined, assertRoom: () => undefined };
  http.route(eventIngestRoute({ host, receiverId: 'http_api', consumer, maxBodyBytes: 1024 * 1024 }));
  const port = await http.listen();
  const bare = await bareServer();
  const barePort = (bare.address() as { port: number }).port;
  const authorization = `Bearer ${keys.live.secret}`;
  const targets = { bare: `http://127.0.0.1:${barePort}/v1/events`, lean: `http://127.0.0.1:${port}/v1/events` };
  const samples: Record<keyof typeof targets, number[]> = { bare: [], lean: [] };
  const only = arg('only', '');
  const names = (['bare', 'lean'] as const).filter((name) => only === '' || name === only);
  for (const name of names) await cpuPerRequest(targets[name], authorization, rate, 1); // warm-up
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const line = (pick: (values: number[]) => number | undefined) => names.map((name) => `${name} ${pick(samples[name])?.toFixed(1)} µs`).join(', ');
  for (let round = 0; round < rounds; round++) {
    for (const name of names) samples[name].push(await cpuPerRequest(targets[name], authorization, rate, seconds));
    console.log(`round ${round + 1}: ${line((values) => values.at(-1))}`);
  }
  console.log(`median CPU per request at ${rate}/s: ${line(median)}`);
  bare.close();
  await http.close();
  await opened.close();
}
