// CPU per item at 25 %, 70 % and 100 % of capacity (issue #30): a closed loop at a fixed number of
// keep-alive connections finds the capacity (and is the 100 % level), then the same requests are
// offered open loop at fixed rates (overload.ts's sender, latency from each scheduled send) at 25 %
// and 70 % of it. Over each measured window the target process's CPU (user + system, all threads,
// /proc/<pid>/stat) is divided by the items accepted; its anonymous RSS is sampled throughout.
// The same is run against the service and against the bare baseline, with the same bodies.
import { drive, settle } from './driver.js';
import { CpuWindow, type RssSampler } from './memory.js';
import { offer, tally } from './overload.js';
import { sleep } from './stats.js';

/** The closed loop runs until about this many answers per connection (at most 4 x capacitySeconds). */
const MIN_ANSWERS_PER_CONNECTION = 10;

const SLOW_SETTLE_MS = 3000;
/** The open-loop levels offer at least this many requests (for at most 4 x levelSeconds). */
const MIN_OPEN_LOOP_REQUESTS = 40;

export type LevelName = '25 %' | '70 %' | '100 %';

export interface LevelResult {
  level: LevelName;
  /** Requests per second offered (open loop), or reached (the closed loop at 100 %). */
  requestsPerSecond: number;
  acceptedRequests: number;
  items: number;
  cpuSeconds: number;
  cpuMicrosPerItem: number;
  cpuMicrosPerRequest: number;
  /** Latency of the accepted requests, ms (from the scheduled send in the open-loop levels). */
  latency: { p50: number; p99: number; max: number; n: number };
  /** Answers that were not 2xx, socket errors, lost and shed requests. */
  errors: number;
  /** Median anonymous RSS (RssAnon: heaps and buffers, not mapped files) and RSS over the second half of the window, MB (NaN when not sampled). */
  steadyAnonMB: number;
  steadyRssMB: number;
}

export interface LevelTarget {
  pid: number;
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
}

export interface LevelOptions {
  nextBody: () => Buffer;
  itemsPerRequest: number;
  connections: number;
  warmupSeconds: number;
  capacitySeconds: number;
  levelSeconds: number;
  maxInFlight: number;
  /** Phases are named `${label} <level>` in the sampler. */
  label: string;
  sampler?: RssSampler;
  log?: (line: string) => void;
}

/** The three levels on one target: the closed loop first (capacity, 100 %), then 70 % and 25 % open loop. */
export async function measureLevels(target: LevelTarget, options: LevelOptions): Promise<LevelResult[]> {
  const url = `${target.baseUrl}${target.path}`;
  const base = { url, connections: options.connections, headers: target.headers, nextBody: options.nextBody };
  let duration = options.capacitySeconds;
  if (options.warmupSeconds > 0) {
    const warm = await drive({ ...base, duration: options.warmupSeconds });
    await settle(warm);
    // Fewer answers than connections: requests slower than the warm-up are still in the service.
    if (warm.ok < options.connections) await sleep(SLOW_SETTLE_MS);
    // A window of a few answers per connection is mostly its edges: slow targets get a longer one.
    const wanted = warm.okPerSecond > 0 ? (MIN_ANSWERS_PER_CONNECTION * options.connections) / warm.okPerSecond : Number.POSITIVE_INFINITY;
    duration = Math.min(4 * duration, Math.max(duration, wanted));
  }
  const cpu = new CpuWindow(target.pid);
  const mark = (level: LevelName) => options.sampler?.mark(`${options.label} ${level}`);
  mark('100 %');
  cpu.start();
  const closed = await drive({ ...base, duration });
  const closedCpu = cpu.stop();
  options.sampler?.mark(`${options.label} between`);
  const results: LevelResult[] = [
    row('100 %', closed.okPerSecond, closed.ok, closedCpu, closed.latency, closed.non2xx + closed.socketErrors + closed.timeouts),
  ];
  options.log?.(`    100 %: ${Math.round(closed.okPerSecond)} requests/s, ${results[0].cpuMicrosPerItem.toFixed(1)} µs CPU/item`);
  for (const fraction of [0.7, 0.25]) {
    const level: LevelName = fraction === 0.7 ? '70 %' : '25 %';
    const rate = Math.max(0.5, fraction * closed.okPerSecond);
    await settle(closed);
    cpu.start();
    const open = await offer({
      baseUrl: target.baseUrl,
      path: target.path,
      headers: target.headers,
      nextBody: options.nextBody,
      rate,
      duration: Math.min(4 * options.levelSeconds, Math.max(options.levelSeconds, MIN_OPEN_LOOP_REQUESTS / rate)),
      connections: options.connections,
      maxInFlight: options.maxInFlight,
      drainTimeout: 30,
      sampler: options.sampler,
      phase: `${options.label} ${level}`,
    });
    const openCpu = cpu.stop();
    options.sampler?.mark(`${options.label} between`);
    const counts = tally(open.statuses);
    const errors = open.answered - counts.accepted + open.lost + open.clientShed;
    results.push(row(level, rate, counts.accepted, openCpu, open.accepted.summary(), errors));
    const r = results.at(-1) as LevelResult;
    options.log?.(`    ${level}: ${Math.round(rate)} requests/s offered, ${r.cpuMicrosPerItem.toFixed(1)} µs CPU/item, p99 ${r.latency.p99.toFixed(1)} ms`);
  }
  return results.sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);

  function row(level: LevelName, rps: number, accepted: number, cpuSeconds: number, latency: LevelResult['latency'], errors: number): LevelResult {
    const items = accepted * options.itemsPerRequest;
    return {
      level,
      requestsPerSecond: rps,
      acceptedRequests: accepted,
      items,
      cpuSeconds,
      cpuMicrosPerItem: items ? (cpuSeconds * 1e6) / items : Number.NaN,
      cpuMicrosPerRequest: accepted ? (cpuSeconds * 1e6) / accepted : Number.NaN,
      latency,
      errors,
      steadyAnonMB: options.sampler?.steady(`${options.label} ${level}`, 'anonMB') ?? Number.NaN,
      steadyRssMB: options.sampler?.steady(`${options.label} ${level}`) ?? Number.NaN,
    };
  }
}
