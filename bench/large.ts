// The reads at scale (`npm run bench -- --only large [--events N] [--spans N] [--data DIR]`): the
// reads phase at 10M events and 10M spans by default, loaded like the reads phase's rows through
// the public ingest routes (load.ts: Sentry envelopes of 100 events, OTLP requests of 1,000 spans).
// That takes long (bench/README.md has the estimate), so `--data DIR` loads once and later runs
// with the same DIR and sizes reuse the rows: the service prints its keys only on a data
// directory's first start, so the live key is kept beside the rows with the sample of ids sent.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOAD_ORDER, loadOverHttp, type LoadResult } from './load.js';
import type { ChildService } from './service.js';

export interface LargeSizes {
  events: number;
  spans: number;
}

export const LARGE_DEFAULTS: LargeSizes = { events: 10_000_000, spans: 10_000_000 };

export function largeSizes(args: { events?: string; spans?: string }): LargeSizes {
  const events = Number(args.events ?? LARGE_DEFAULTS.events);
  const spans = Number(args.spans ?? LARGE_DEFAULTS.spans);
  for (const [name, n] of Object.entries({ events, spans }))
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${n}`);
  return { events, spans };
}

const LOADED = 'bench-load.json';

export interface Loaded extends LoadResult {
  /** True when the rows of an earlier run were reused. */
  reused: boolean;
}

/**
 * Starts the service on `dataDir` (`start(liveKey)`), and loads the rows through it, or, when an
 * earlier run with `--data DIR` loaded the same sizes there, reuses them.
 */
export async function loadOnce(
  dataDir: string,
  events: number,
  spans: number,
  log: (line: string) => void,
  start: (liveKey?: string) => Promise<ChildService>,
): Promise<{ svc: ChildService; loaded: Loaded }> {
  const marker = join(dataDir, LOADED);
  if (existsSync(marker)) {
    const kept = JSON.parse(readFileSync(marker, 'utf8')) as LoadResult & { liveKey: string; asked: LargeSizes; order?: string };
    if (kept.asked.events !== events || kept.asked.spans !== spans)
      throw new Error(`${dataDir} holds ${kept.asked.events} events and ${kept.asked.spans} spans, not the ${events} and ${spans} asked for`);
    if (kept.order !== LOAD_ORDER) throw new Error(`${dataDir} was loaded with events in random time order by an earlier bench: load a new directory`);
    log(`  reusing the rows loaded into ${dataDir}`);
    return { svc: await start(kept.liveKey), loaded: { ...kept, reused: true } };
  }
  mkdirSync(dataDir, { recursive: true });
  const svc = await start();
  const loaded = await loadOverHttp(svc, events, spans, log);
  writeFileSync(marker, JSON.stringify({ ...loaded, liveKey: svc.liveKey, asked: { events, spans }, order: LOAD_ORDER }));
  return { svc, loaded: { ...loaded, reused: false } };
}
