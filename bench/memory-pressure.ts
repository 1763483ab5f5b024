// Memory under pressure (issue #10, item 6): many connections posting large events at once.
// Starts the service as a child process (so its RSS is its own), opens `connections` concurrent
// uploads of an event of `kb` KiB each, `rounds` times over, and prints the peak RSS with the
// answers by status. The in-flight budget (64 MiB for events by default) should bound what the
// service holds however many uploads arrive together: past it, 503 + Retry-After.
//
//   npx tsc -p bench/tsconfig.json && node dist/bench/memory-pressure.js [connections] [kb] [rounds]
import { request, Agent } from 'node:http';
import { readRss } from './memory.js';
import { startChild, tempDir } from './service.js';

const connections = Number(process.argv[2] ?? 500);
const kb = Number(process.argv[3] ?? 200);
const rounds = Number(process.argv[4] ?? 3);
const errorsSeen = new Map<string, number>();

function largeEvent(i: number): string {
  // Many small objects, as real SDK payloads carry (breadcrumbs with data, contexts): the parsed
  // heap of such a body is several times its JSON size. About 82 bytes each.
  const contexts: Record<string, Record<string, unknown>> = {};
  for (let n = 0; n * 82 < kb * 1024; n++) contexts[`ctx_${n}`] = { name: `component ${n}`, version: n, enabled: n % 2 === 0, ids: [n, n + 1] };
  return JSON.stringify({
    timestamp: new Date().toISOString(),
    environment: 'production',
    release: 'bench@1.0.0',
    exception: { type: 'PressureError', value: `upload ${i}` },
    contexts,
  });
}

function post(port: number, agent: Agent, key: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/events',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      errorsSeen.set(error.code ?? error.message, (errorsSeen.get(error.code ?? error.message) ?? 0) + 1);
      resolve(-1);
    });
    req.end(body);
  });
}

async function main(): Promise<void> {
  const nodeArgs = process.env.SERVICE_NODE_ARGS ? process.env.SERVICE_NODE_ARGS.split(' ') : [];
  const service = await startChild({ dataDir: tempDir('faultline-pressure-'), env: { FAULTLINE_LOG_LEVEL: 'error' }, nodeArgs });
  const port = Number(new URL(service.baseUrl).port);
  // Peak RSS, and peak anonymous RSS: the heap and buffers, without the DocStore's memory-mapped
  // file (LMDB pages written count in RSS as file pages, and grow with what is stored).
  const idle = readRss(service.pid);
  const peak = { rssMB: idle.rssMB, anonMB: idle.anonMB };
  const sampler = setInterval(() => {
    try {
      const now = readRss(service.pid);
      peak.rssMB = Math.max(peak.rssMB, now.rssMB);
      peak.anonMB = Math.max(peak.anonMB, now.anonMB);
    } catch {
      // the process is gone
    }
  }, 20);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const bodies = Array.from({ length: connections }, (_, i) => largeEvent(i));
  const statuses = new Map<number, number>();
  try {
    for (let round = 0; round < rounds; round++) {
      const answers = await Promise.all(bodies.map((body) => post(port, agent, service.liveKey, body)));
      for (const status of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  } finally {
    clearInterval(sampler);
    agent.destroy();
    await service.stop();
  }
  console.log(
    JSON.stringify({
      connections,
      body_kib: Math.round(Buffer.byteLength(bodies[0]) / 1024),
      rounds,
      statuses: Object.fromEntries(statuses),
      errors: Object.fromEntries(errorsSeen),
      idle_rss_mb: Math.round(idle.rssMB),
      idle_anon_mb: Math.round(idle.anonMB),
      peak_rss_mb: Math.round(peak.rssMB),
      peak_anon_mb: Math.round(peak.anonMB),
    }),
  );
}

await main();
