// Replay ingest: 1 MB rrweb chunks posted to the real service (a child process, so its CPU is its
// own: the yardstick) as JSON `events` and as a raw gzip body, sequentially with a few in flight;
// chunks/s, MB/s of raw events, CPU per chunk (the service's, and with the sender's), and the bytes
// stored per raw byte. The baseline, measured in the same run, is the work no server can skip:
// JSON.parse of the chunk and its gzip compression, in process, with no HTTP and no storage.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { measureLevels, type LevelResult } from './levels.js';
import { CpuWindow, directoryBytes, RssSampler } from './memory.js';
import { startChild, tempDir } from './service.js';

export interface ReplaysResult {
  chunkBytes: number;
  /**
   * cpuMillisPerChunk: CPU of the service and the sender together (the figure before the service
   * moved to a child process; for the baseline, its only process); serviceCpuMillisPerChunk: the
   * service child's alone (/proc/<pid>/stat, all threads), the yardstick; NaN for the baseline.
   */
  cases: Array<{ label: string; chunks: number; chunksPerSecond: number; rawMBPerSecond: number; cpuMillisPerChunk: number; serviceCpuMillisPerChunk: number }>;
  /** Bytes on disk under <data_dir>/replays per raw byte posted (unique chunks). */
  storedPerRawByte: number;
  /** JSON-events chunks at 25 %, 70 % and 100 % of capacity over 4 connections (levels.ts), the service child's CPU per chunk. */
  levels: LevelResult[];
}

/** About `bytes` of rrweb-like events: a full snapshot of a page, then incremental mutations and inputs. */
function chunk(seed: number, bytes: number, segment: number): unknown[] {
  const events: unknown[] = [];
  let size = 0;
  let t = 1_795_860_000_000 + seed * 1_000_000;
  if (segment === 0) events.push({ type: 4, data: { href: `https://shop.example/p/${seed}`, width: 1280, height: 720 }, timestamp: t++ });
  for (let i = 0; size < bytes; i++) {
    const event =
      i % 5 === 0
        ? {
            type: 3,
            data: {
              source: 0,
              adds: [
                {
                  parentId: i,
                  node: { type: 2, tagName: 'div', attributes: { class: `row row-${i % 17}`, 'data-id': `${seed}-${i}` }, childNodes: [], id: 10_000 + i },
                },
              ],
              removes: [],
              texts: [{ id: i, value: `Item ${i} of cart ${seed}: ${(i * 7.31).toFixed(2)} EUR` }],
              attributes: [],
            },
            timestamp: t++,
          }
        : i % 5 === 1
          ? { type: 3, data: { source: 5, text: `query ${i}`, isChecked: false, id: 42 }, timestamp: t++ }
          : { type: 3, data: { source: 1, positions: [{ x: (i * 13) % 1280, y: (i * 7) % 720, id: 7, timeOffset: -i % 50 }] }, timestamp: t++ };
    events.push(event);
    size += JSON.stringify(event).length + 1;
  }
  return events;
}

interface Timed {
  n: number;
  raw: number;
  elapsed: number;
  cpuMicros: number;
  serviceCpuMicros: number;
}

async function timed(run: () => Promise<[chunks: number, raw: number]>, seconds: number, servicePid?: number): Promise<Timed> {
  const service = servicePid ? new CpuWindow(servicePid) : undefined;
  service?.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  let raw = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const [chunks, bytes] = await run();
    n += chunks;
    raw += bytes;
  }
  const cpu = process.cpuUsage(cpu0);
  const serviceCpuMicros = service ? service.stop() * 1e6 : Number.NaN;
  return { n, raw, elapsed: (performance.now() - t0) / 1000, cpuMicros: cpu.user + cpu.system + (service ? serviceCpuMicros : 0), serviceCpuMicros };
}

export async function measureReplays(options: {
  seconds: number;
  chunkBytes?: number;
  /** For the levels: warm-up, closed loop and each open-loop level, seconds. */
  levelSeconds?: { warmup: number; capacity: number; level: number };
  log?: (line: string) => void;
}): Promise<ReplaysResult> {
  const chunkBytes = options.chunkBytes ?? 1_000_000;
  const dir = tempDir('faultline-bench-replays-');
  const svc = await startChild({ dataDir: dir });
  // Distinct chunks (content-addressed storage would store repeats once), prepared before timing.
  const prepared = Array.from({ length: 16 }, (_, i) => {
    const events = chunk(i, chunkBytes, 0);
    const json = JSON.stringify(events);
    return { json, gz: gzipSync(json) };
  });
  const cases: ReplaysResult['cases'] = [];
  const add = (label: string, r: Timed) =>
    cases.push({
      label,
      chunks: r.n,
      chunksPerSecond: r.n / r.elapsed,
      rawMBPerSecond: r.raw / 1e6 / r.elapsed,
      cpuMillisPerChunk: r.cpuMicros / 1000 / r.n,
      serviceCpuMillisPerChunk: r.serviceCpuMicros / 1000 / r.n,
    });
  try {
    let i = 0;
    add(
      'baseline: JSON.parse + gzip, in process',
      await timed(async () => {
        const { json } = prepared[i++ % prepared.length];
        JSON.parse(json);
        gzipSync(json);
        return [1, json.length];
      }, options.seconds),
    );
    let segment = 0;
    let rawPosted = 0;
    const post = async (form: 'json' | 'raw') => {
      const { json, gz } = prepared[segment % prepared.length];
      const replay = `rpl_bench${Math.floor(segment / prepared.length)}`;
      const n = segment++;
      const headers = { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' };
      const res =
        form === 'json'
          ? await fetch(`${svc.baseUrl}/v1/replays`, { method: 'POST', headers, body: `{"replay_id":"${replay}","segment_id":${n},"events":${json}}` })
          : await fetch(`${svc.baseUrl}/v1/replays?replay_id=${replay}&segment_id=${n}`, {
              method: 'POST',
              headers: { ...headers, 'content-encoding': 'gzip' },
              body: gz,
            });
      if (res.status !== 202) throw new Error(`POST /v1/replays answered ${res.status}: ${await res.text()}`);
      rawPosted += json.length;
      return json.length;
    };
    add('POST /v1/replays, JSON events (1 in flight)', await timed(async () => [1, await post('json')], options.seconds, svc.pid));
    add('POST /v1/replays, raw gzip body (1 in flight)', await timed(async () => [1, await post('raw')], options.seconds, svc.pid));
    add(
      'POST /v1/replays, raw gzip body (4 in flight)',
      await timed(
        async () => [4, (await Promise.all([post('raw'), post('raw'), post('raw'), post('raw')])).reduce((a, b) => a + b, 0)],
        options.seconds,
        svc.pid,
      ),
    );
    const unique = prepared.reduce((sum, p) => sum + p.json.length, 0);
    const timing = options.levelSeconds ?? { warmup: 1, capacity: options.seconds, level: options.seconds };
    const sampler = new RssSampler(svc.pid).start();
    options.log?.('  JSON events chunks, 4 connections: capacity then 70 % and 25 % of it');
    const levels = await measureLevels(
      { pid: svc.pid, baseUrl: svc.baseUrl, path: '/v1/replays', headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' } },
      {
        nextBody: () => {
          const { json } = prepared[segment % prepared.length];
          const n = segment++;
          rawPosted += json.length;
          return Buffer.from(`{"replay_id":"rpl_bench${Math.floor(n / prepared.length)}","segment_id":${n},"events":${json}}`);
        },
        itemsPerRequest: 1,
        connections: 4,
        warmupSeconds: timing.warmup,
        capacitySeconds: timing.capacity,
        levelSeconds: timing.level,
        maxInFlight: 64,
        label: 'replays',
        sampler,
        log: options.log,
      },
    );
    sampler.stop();
    // Every distinct chunk was posted (content addressing stores each once): stored bytes over their raw bytes.
    return { chunkBytes, cases, storedPerRawByte: rawPosted >= unique ? directoryBytes(join(dir, 'replays')) / unique : 0, levels };
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
