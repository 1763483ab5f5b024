// What the feature phases share: the service as a child process (`node bin/faultline.js start
// --config <file>`) on a variant of the default config, set up through its HTTP API, driven at a
// fixed offered load over HTTP (autocannon), and its CPU (user + system, all threads, from
// /proc/<pid>/stat) read around the measured run. The same bodies at the same rate for every
// variant: the difference in CPU per item is what the feature costs.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ConfigDoc } from './config-variants.js';
import { drive, settle } from './driver.js';
import { cpuSeconds } from './memory.js';
import { startChild, tempDir, type ChildService } from './service.js';
import { sleep } from './stats.js';

export interface PhaseChild {
  svc: ChildService;
  /** A JSON request with the live key; the answer's status and parsed body. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** The service on a fresh data directory with `doc` written to a temporary YAML file. */
export async function startPhaseChild(name: string, doc: ConfigDoc, env: Record<string, string> = {}): Promise<PhaseChild> {
  const dir = tempDir(`faultline-bench-${name}-`);
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, stringify(doc));
  const svc = await startChild({ dataDir: join(dir, 'data'), configFile, env });
  return {
    svc,
    api: async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${svc.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${svc.liveKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    stop: async () => {
      await svc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LoadOptions {
  /** Full URL of the route. */
  url: string;
  headers: Record<string, string>;
  nextBody: () => Buffer;
  /** Offered requests per second (open loop: the same in every variant). */
  rate: number;
  seconds: number;
  /** Seconds of the same load before the measured run (JIT, caches). */
  warmup?: number;
  /** Items per accepted request (spans per OTLP request). */
  itemsPerRequest?: number;
  /** Count every answered request, 4xx included (a baseline of requests the service refuses). */
  countEveryAnswer?: boolean;
}

/** A measured run: the child's CPU over it divided by the items it accepted. */
export interface CpuLoad {
  /** Items accepted (2xx requests × items per request; every answered request with `countEveryAnswer`). */
  items: number;
  /** Requests not answered 2xx (refusals, errors, timeouts). */
  rejected: number;
  itemsPerSecond: number;
  cpuSeconds: number;
  cpuMicrosPerItem: number;
}

/** Offers `rate` requests/s for `seconds` (after a warm-up) and reads the child's CPU around the run and a short tail (work deferred past the acknowledgment). */
export async function measureLoad(svc: ChildService, options: LoadOptions): Promise<CpuLoad> {
  // Enough connections that the offered rate is reached even when answers slow down (the rate, not the connections, sets the load).
  const connections = Math.max(8, Math.min(64, Math.ceil(options.rate / 10)));
  const base = { url: options.url, headers: options.headers, nextBody: options.nextBody, connections, overallRate: options.rate, timeout: 10 };
  if ((options.warmup ?? 1) > 0) await settle(await drive({ ...base, duration: options.warmup ?? 1 }));
  const cpu0 = cpuSeconds(svc.pid);
  const result = await drive({ ...base, duration: options.seconds });
  await sleep(300);
  const cpu = cpuSeconds(svc.pid) - cpu0;
  const items = (options.countEveryAnswer ? result.requests : result.ok) * (options.itemsPerRequest ?? 1);
  return {
    items,
    rejected: (options.countEveryAnswer ? 0 : result.non2xx) + result.socketErrors + result.timeouts,
    itemsPerSecond: items / result.seconds,
    cpuSeconds: cpu,
    cpuMicrosPerItem: items > 0 ? (cpu * 1e6) / items : Number.NaN,
  };
}

/** Events posted to `POST /v1/events` with the child's live key. */
export function eventLoad(svc: ChildService, bodies: Buffer[], rate: number, seconds: number, warmup?: number): Promise<CpuLoad> {
  let next = 0;
  return measureLoad(svc, {
    url: `${svc.baseUrl}/v1/events`,
    headers: { authorization: `Bearer ${svc.liveKey}`, 'content-type': 'application/json' },
    nextBody: () => bodies[next++ % bodies.length],
    rate,
    seconds,
    warmup,
  });
}

/** The CPU the child spends doing nothing asked of it over `seconds` (its timers, GC, DuckDB's threads). */
export async function idleCpuSeconds(svc: ChildService, seconds: number): Promise<number> {
  const cpu0 = cpuSeconds(svc.pid);
  await sleep(seconds * 1000);
  return cpuSeconds(svc.pid) - cpu0;
}

/** One line of a feature phase's table: a load with the feature, and the same load without it. */
export interface FeatureRow {
  label: string;
  with: CpuLoad;
  /** The same bodies at the same rate on the variant without the feature (absent: the row is a figure of its own). */
  without?: CpuLoad;
}

/** What a feature phase reports: a title, the rows, and notes under the table. */
export interface FeaturePhase {
  title: string;
  /** What the item is: "event", "span", "check-in", … */
  item: string;
  rows: FeatureRow[];
  notes: string[];
}

/** Seconds of load before the first measured run on a fresh child: its first seconds cost several times the steady state (JIT, DuckDB's first commits). */
const WARMUP = 3;

/** The loads of several runs as one: their CPU over their items. */
export function pooled(loads: CpuLoad[]): CpuLoad {
  const items = loads.reduce((n, l) => n + l.items, 0);
  const cpu = loads.reduce((n, l) => n + l.cpuSeconds, 0);
  const seconds = loads.reduce((n, l) => n + (l.itemsPerSecond > 0 ? l.items / l.itemsPerSecond : 0), 0);
  return {
    items,
    rejected: loads.reduce((n, l) => n + l.rejected, 0),
    itemsPerSecond: seconds > 0 ? items / seconds : Number.NaN,
    cpuSeconds: cpu,
    cpuMicrosPerItem: items > 0 ? (cpu * 1e6) / items : Number.NaN,
  };
}

/** Rounds of the measured runs: 1 in a quick run (2 s runs), else 3. */
export function roundsFor(seconds: number): number {
  return seconds <= 2 ? 1 : 3;
}

/**
 * Runs every case once per round, in turn (with and without interleaved, so a burst of load on a
 * shared machine falls on both), and pools each case's rounds.
 */
export async function interleaved<K extends string>(rounds: number, cases: Record<K, () => Promise<CpuLoad>>): Promise<Record<K, CpuLoad>> {
  const keys = Object.keys(cases) as K[];
  const runs = new Map<K, CpuLoad[]>(keys.map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) for (const k of keys) runs.get(k)?.push(await cases[k]());
  return Object.fromEntries(keys.map((k) => [k, pooled(runs.get(k) ?? [])])) as Record<K, CpuLoad>;
}

/** Starts the variants side by side, runs `use` on them, and always stops them. */
export async function withPhaseChildren<T>(
  variants: Array<{ name: string; doc: ConfigDoc; env?: Record<string, string> }>,
  use: (children: PhaseChild[]) => Promise<T>,
): Promise<T> {
  const started = await Promise.allSettled(variants.map((v) => startPhaseChild(v.name, v.doc, v.env)));
  const children = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return await use(children);
  } finally {
    for (const child of children) await child.stop().catch(() => undefined);
  }
}

/** Events at `rate` on each child at once, not measured: WARMUP seconds, 2 in a quick run (measured runs of `runSeconds` ≤ 2). */
export async function warmEvents(children: PhaseChild[], bodies: Buffer[], rate: number, runSeconds: number): Promise<void> {
  await Promise.all(children.map(({ svc }) => eventLoad(svc, bodies, rate, runSeconds <= 2 ? 2 : WARMUP, 0)));
  await Promise.all(children.map(({ svc }) => untilIdle(svc)));
}

/** Waits (at most `maxMs`) until the child has used under 5 % of a core for 200 ms: the work a warm-up left behind (indexing, a checkpoint) is not charged to the first measured run. */
export async function untilIdle(svc: ChildService, maxMs = 5000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (Date.now() < deadline) if ((await idleCpuSeconds(svc, 0.2)) < 0.01) return;
}

/** Posts each body once (8 at a time), e.g. to open every issue before a measured run; throws unless all are accepted. */
export async function postEach(child: PhaseChild, bodies: Buffer[], path = '/v1/events'): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await fetch(`${child.svc.baseUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${child.svc.liveKey}`, 'content-type': 'application/json' },
          body,
        });
        if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
        await res.body?.cancel().catch(() => undefined);
      }
    }),
  );
}
