// Recursion, version 2: a stack that repeats a cycle of one to five frames (direct or mutual
// recursion) keeps one turn of it, so the depth of the recursion, and the point of the cycle where
// the engine's window of frames starts or where the stack overflowed, do not change the group.

const LONGEST_CYCLE = 5;

/** The rotation of `cycle` that sorts first: the same cycle entered at any point reads the same. */
function canonicalRotation<T>(cycle: T[], key: (item: T) => string): T[] {
  let best = cycle;
  let bestKey = cycle.map(key).join('\0');
  for (let shift = 1; shift < cycle.length; shift++) {
    const rotated = [...cycle.slice(shift), ...cycle.slice(0, shift)];
    const rotatedKey = rotated.map(key).join('\0');
    if (rotatedKey < bestKey) [best, bestKey] = [rotated, rotatedKey];
  }
  return best;
}

/**
 * The shortest period (1–5) that repeats from `start`, or 0. A period repeats when the frames after
 * its first turn follow it for at least min(period, 3) frames: `a a`, `a b a b`, `a b c a b c`,
 * and 1.6 turns of a five-frame cycle (what fits in a window of eight frames).
 */
function periodAt(components: readonly string[], start: number): number {
  for (let period = 1; period <= LONGEST_CYCLE; period++) {
    const needed = Math.min(period, 3);
    if (start + period + needed > components.length) break;
    let repeats = true;
    for (let i = 0; i < needed && repeats; i++) repeats = components[start + i] === components[start + period + i];
    if (repeats) return period;
  }
  return 0;
}

/**
 * Replaces every run that repeats a cycle (including the partial turns at its ends) by one turn of
 * the cycle in its canonical rotation, and drops the frames older than it: `a b c a b c a b` and
 * `main c a b c a b c a` both become `a b c`; frames newer than the run (nearer the crash) stay.
 */
export function collapseCycles<T = string>(items: readonly T[], key: (item: T) => string = String): T[] {
  const components = items.map(key);
  let out: T[] = [];
  let i = 0;
  while (i < components.length) {
    const period = periodAt(components, i);
    if (period === 0) {
      out.push(items[i]);
      i++;
      continue;
    }
    // The run goes on as long as each frame repeats the one a period before it.
    let end = i + period + Math.min(period, 3);
    while (end < components.length && components[end] === components[end - period]) end++;
    // A partial turn before the run (the window started inside the cycle) belongs to it too.
    let start = i;
    while (start > 0 && out.length > 0 && components[start - 1] === components[start - 1 + period]) {
      start--;
      out.pop();
    }
    // The frames older than the recursion show or not depending on its depth against the engine's
    // window of frames: they do not count.
    out = canonicalRotation(items.slice(start, start + period), key);
    i = end;
  }
  return out;
}
