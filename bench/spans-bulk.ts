// Spans in bulk: the service's CPU per span over OTLP/HTTP protobuf, for requests of 100 and
// 1,000 spans. The service runs as a child (`node bin/faultline.js start`, embedded default config);
// its CPU is read from /proc/<pid>/stat around a fixed number of requests posted by a few
// concurrent senders, after a warm-up. protobufjs's decode CPU per span (in this process) on the same payloads is
// printed beside it (the floor). `--profile <dir>`: the child runs with --cpu-prof and the top
// functions of its profile are printed.
//
// `--layouts batch,per_span`: the duckdb exporter's span_documents, each measured in turn (per_span
// is the layout before span batches, for a before/after in one run; `default` leaves the config
// as it is, for a build without the setting).
//
//   node dist/bench/spans-bulk.js [--requests 300] [--concurrency 4] [--sizes 100,1000] [--layouts batch] [--profile dir]
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './memory.js';
import { SpanPayloads } from './payloads.js';
import { formatProfile, newestProfile, summarizeProfile } from './profile.js';
import { startChild, tempDir, type ChildService } from './service.js';
import { decodeOtlpTraces, spansOf } from './otlp-proto.js';
import { packageRoot } from './paths.js';
import { round, sleep } from './stats.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '4' },
    sizes: { type: 'string', default: '100,1000' },
    profile: { type: 'string' },
    layouts: { type: 'string', default: 'batch' },
  },
});
const layouts = String(values.layouts).split(',');
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const sizes = String(values.sizes).split(',').map(Number);

/** CPU µs per span of decoding the same requests with protobufjs in this process: the floor no server can skip. */
function decodeCpu(payloads: SpanPayloads, seconds: number): number {
  const ring = Array.from({ length: 32 }, () => payloads.nextBody());
  const run = (ms: number): number => {
    let spans = 0;
    const start = performance.now();
    for (let i = 0; performance.now() - start < ms; i++) spans += spansOf(decodeOtlpTraces(ring[i % ring.length])).length;
    return spans;
  };
  run(Math.min(1000, seconds * 200)); // warm-up: let V8 optimize the decoder
  const cpu0 = process.cpuUsage();
  const spans = run(seconds * 1000);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / spans;
}

/** Posts `count` requests from `concurrency` senders; throws on any answer but 200. */
async function post(service: ChildService, payloads: SpanPayloads, count: number): Promise<void> {
  const url = `${service.otlpUrl}/v1/traces`;
  const headers = { authorization: `Bearer ${service.liveKey}`, 'content-type': 'application/x-protobuf' };
  let left = count;
  const sender = async () => {
    while (left > 0) {
      left--;
      const response = await fetch(url, { method: 'POST', headers, body: payloads.nextBody() });
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`OTLP answered ${response.status}: ${Buffer.from(body).toString()}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
}

/**
 * CPU seconds of the main thread and of the others together (DuckDB's, libuv's, V8's: Node names
 * none of them), from /proc/<pid>/task/<tid>/stat.
 */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main thread' : 'other threads';
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

function threadShares(before: Map<string, number>, after: Map<string, number>, spans: number): string {
  const rows = [...after].map(([name, seconds]) => [name, seconds - (before.get(name) ?? 0)] as const).filter(([, s]) => s > 0);
  return rows
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${round((seconds * 1e6) / spans)}`)
    .join(', ');
}

/**
 * The child's CPU seconds once it has gone quiet: acknowledged spans are indexed into DuckDB
 * behind the acknowledgment, and that work belongs to them too.
 */
async function quiet(pid: number): Promise<number> {
  let last = cpuSeconds(pid);
  for (let i = 0; i < 50; i++) {
    await sleep(300);
    const now = cpuSeconds(pid);
    if (now - last <= 0.02) return now;
    last = now;
  }
  return last;
}

/** The embedded default configuration with the duckdb exporter's span layout set. */
function configFile(dir: string, layout: string): string {
  const example = readFileSync(join(packageRoot, 'config/examples/duckdb.yaml'), 'utf8');
  const yaml = layout === 'default' ? example : example.replace('  duckdb: {}', `  duckdb:\n    span_documents: ${layout}`);
  const file = join(dir, 'faultline.yaml');
  writeFileSync(file, yaml);
  return file;
}

async function measure(size: number, layout: string): Promise<void> {
  const payloads = new SpanPayloads(size, 4);
  payloads.selfCheck();
  const dataDir = tempDir('faultline-spans-bulk-');
  const profileDir = values.profile;
  const service = await startChild({
    dataDir,
    configFile: configFile(dataDir, layout),
    env: { FAULTLINE_DATA_DIR: join(dataDir, 'data') },
    nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  try {
    const perSize = Math.max(1, Math.round((requests * 100) / size)); // about the same spans for every size
    await post(service, payloads, Math.max(2, Math.round(perSize / 5))); // warm-up
    const threads0 = threadCpu(service.pid);
    const cpu0 = cpuSeconds(service.pid);
    const t0 = performance.now();
    await post(service, payloads, perSize);
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = (await quiet(service.pid)) - cpu0;
    const spans = perSize * size;
    const threads = threadShares(threads0, threadCpu(service.pid), spans);
    const decode = decodeCpu(payloads, 2);
    console.log(
      `${layout}, ${size} spans/request: ${perSize} requests, ${spans} spans in ${round(elapsed)} s (${Math.round(spans / elapsed)} spans/s); ` +
        `service CPU ${round((cpu * 1e6) / spans)} µs/span; protobufjs decode ${round(decode)} µs/span`,
    );
    console.log(`  by thread, µs/span: ${threads}`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (profileDir) {
    const file = newestProfile(profileDir);
    if (file) console.log(formatProfile(`${layout}, ${size} spans/request`, summarizeProfile(file, 30)));
  }
}

for (const size of sizes) for (const layout of layouts) await measure(size, layout);
