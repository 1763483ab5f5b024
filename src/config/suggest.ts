// "Did you mean …?" for an unknown configuration key: the closest known key of the same object by
// Damerau-Levenshtein distance (optimal string alignment: a swap of two neighbours is one edit).
import type { z } from 'zod';

/** The message for an unknown key, with the closest of `known` when one is near enough. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const nearest = closest(key, known);
  if (nearest) return `unknown key "${key}"; did you mean "${nearest}"?`;
  return known.length ? `unknown key "${key}" (known keys here: ${[...known].sort().join(', ')})` : `unknown key "${key}"`;
}

/** Keys longer than this are not compared (a key is a word, and the work is length squared). */
const MAX_COMPARED = 128;

/** The candidate nearest to `word`, if it is within a third of the word's length (at least 2 edits). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > MAX_COMPARED) return undefined;
  const limit = Math.max(2, Math.floor(word.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate.length > MAX_COMPARED || Math.abs(candidate.length - word.length) > limit) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], before[j - 2] + 1);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/**
 * The keys of the object a zod schema describes at `path` (through optional, default, prefault,
 * nullable, pipes and arrays), or [] when there is no object there.
 */
export function zodObjectKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: z.core.$ZodType | undefined = schema;
  for (let step = 0; node && step <= path.length;) {
    const def: z.core.$ZodTypeDef & { innerType?: z.core.$ZodType; in?: z.core.$ZodType; element?: z.core.$ZodType; shape?: Record<string, z.core.$ZodType> } =
      node._zod.def;
    if (def.innerType) node = def.innerType;
    else if (def.type === 'pipe') node = def.in;
    else if (def.type === 'array') node = typeof path[step] === 'number' ? (step++, def.element) : undefined;
    else if (def.type === 'object' && def.shape) {
      if (step === path.length) return Object.keys(def.shape);
      node = def.shape[String(path[step++])];
    } else return [];
  }
  return [];
}
