// What every category shares: the bug/occurrence helper (one seeded PRNG per bug, so adding a bug
// does not change the others), releases whose builds move code and change bundle hashes, and the
// event envelope.
import { validationConfigSchema } from '../../../processors/validation/config.js';
import { Random, stableInt } from './random.js';
import type { CorpusEntry, CorpusEvent, CorpusException } from './types.js';

/** Changing it regenerates every event (and is the only thing that should). */
export const CORPUS_SEED = 'faultline-grouping-corpus-v1';

/**
 * Frames the corpus stores of a stack overflow: the innermost ones Faultline's validation keeps
 * (`max_frames`, 250) of the JVM's 1024 or Python's ~1000. Grouping sees exactly these either way;
 * storing the rest would triple the file's size.
 */
export const STORED_FRAMES: number = validationConfigSchema.parse({}).max_frames;

const EPOCH = Date.UTC(2025, 4, 1);
const MONTH_MS = 30 * 24 * 3600 * 1000;

/** A time in May 2025, to the millisecond. */
export function timestamp(rng: Random): string {
  return new Date(EPOCH + rng.int(0, MONTH_MS)).toISOString();
}

/**
 * An application and its releases. A build's hashes and how far each file's code moved are drawn
 * from (app, release, file) alone, so every bug of one release sees the same `main.4f3a2b1c.js`.
 */
export class App {
  constructor(
    readonly name: string,
    readonly versions: readonly string[],
  ) {}

  release(index: number): string {
    return `${this.name}@${this.versions[index]}`;
  }

  /** A release index, newer ones more likely (a bug is seen most after it ships). */
  pickRelease(rng: Random, from = 0): number {
    const choices = this.versions.map((_, i) => [i, i + 1] as const).slice(from);
    return rng.weighted(choices);
  }

  /** Randomness of one build: the same for every event of that release. */
  build(index: number, key: string): Random {
    return Random.from(`${this.name}@${this.versions[index]}:${key}`);
  }

  /** How many lines the code of `file` moved down by release `index` (0 in the first). */
  shift(index: number, file: string): number {
    let lines = 0;
    for (let i = 1; i <= index; i++) lines += stableInt(`${this.name}@${this.versions[i]}:shift:${file}`, 0, 7);
    return lines;
  }
}

export type Occurrence = (rng: Random, index: number) => CorpusEvent;

/**
 * The occurrences of one bug. `count` is a number or a `[min, max]` range. The label is
 * `<category>/<id>`: every event built here is, by construction, the same defect.
 */
export function occurrences(category: string, id: string, count: number | readonly [number, number], make: Occurrence): CorpusEntry[] {
  const rng = Random.from(`${CORPUS_SEED}/${category}/${id}`);
  const n = typeof count === 'number' ? count : rng.int(count[0], count[1]);
  const entries: CorpusEntry[] = [];
  for (let i = 0; i < n; i++) entries.push({ category, bug: `${category}/${id}`, event: make(rng, i) });
  return entries;
}

export interface EnvelopeFields {
  release: string;
  platform: string;
  exception: CorpusException;
  message?: string;
  level?: CorpusEvent['level'];
  fingerprint?: string[];
  tags?: Record<string, string>;
}

/** The body around an exception: time, environment, release (what a client always sends). */
export function envelope(rng: Random, fields: EnvelopeFields): CorpusEvent {
  return {
    timestamp: timestamp(rng),
    environment: rng.chance(0.85) ? 'production' : 'staging',
    release: fields.release,
    level: fields.level ?? 'error',
    platform: fields.platform,
    ...(fields.message !== undefined && { message: fields.message }),
    exception: fields.exception,
    ...(fields.fingerprint !== undefined && { fingerprint: fields.fingerprint }),
    ...(fields.tags !== undefined && { tags: fields.tags }),
  };
}
