// The reads at scale (`npm run bench -- --only large [--events N] [--spans N] [--documents K]`):
// the reads phase (load.ts, reads.ts) at 10M events and 10M spans by default. The rows are written
// straight into the duckdb exporter's storage (DuckDB tables, DocStore) by SQL, not over HTTP:
// minutes instead of days at today's ingest rate. Only the newest K events and the spans of the
// newest K/12.5 traces get documents (500,000 by default): all 10M of each would take ~150 GB of
// DocStore and most of an hour to write. The pages read (first, filtered, deep, the issue page)
// are of the newest events, and the random event and trace ids are drawn among rows with
// documents, so every request reads what it would read with all the documents present; what
// differs is the DocStore's size (a B-tree lookup, depth log N) and how much of it the page
// cache holds.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bulkLoad, type LoadResult } from './load.js';

export interface LargeSizes {
  events: number;
  spans: number;
  documents: number;
}

export const LARGE_DEFAULTS: LargeSizes = { events: 10_000_000, spans: 10_000_000, documents: 500_000 };

export function largeSizes(args: { events?: string; spans?: string; documents?: string }): LargeSizes {
  const events = Number(args.events ?? LARGE_DEFAULTS.events);
  const spans = Number(args.spans ?? LARGE_DEFAULTS.spans);
  const documents = Math.min(Number(args.documents ?? LARGE_DEFAULTS.documents), events, spans);
  for (const [name, n] of Object.entries({ events, spans, documents }))
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${n}`);
  return { events, spans, documents };
}

const LOADED = 'bench-load.json';

/**
 * Loads the rows into `dataDir` (bulkLoad), or, when an earlier run with `--data DIR` loaded them
 * there already, reuses them: a 10M-row load takes minutes, the reads after a change of the read
 * path a fraction of that.
 */
export async function loadOnce(
  dataDir: string,
  events: number,
  spans: number,
  log: (line: string) => void,
  documents?: number,
): Promise<Omit<LoadResult, 'fileBytes'>> {
  const marker = join(dataDir, LOADED);
  if (existsSync(marker)) {
    const loaded = JSON.parse(readFileSync(marker, 'utf8')) as Omit<LoadResult, 'fileBytes'> & { documents?: number };
    if (loaded.events !== events || loaded.documents !== documents)
      throw new Error(`${dataDir} holds ${loaded.events} events (documents: ${loaded.documents ?? 'all'}), not the ${events} asked for`);
    log(`  reusing the rows loaded into ${dataDir}`);
    return loaded;
  }
  mkdirSync(dataDir, { recursive: true });
  const loaded = await bulkLoad(dataDir, events, spans, log, undefined, { documents });
  writeFileSync(marker, JSON.stringify({ ...loaded, documents }));
  return loaded;
}
