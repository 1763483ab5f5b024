// Recursion, version 2: a stack that repeats a cycle of one to five frames (direct or mutual
// recursion) keeps one turn of it, so the depth of the recursion, and the point of the cycle where
// the engine's window of frames starts or where the stack overflowed, do not change the group.

const LONGEST_CYCLE = 5;

/** The rotation of `cycle` that sorts first: the same cycle entered at any point reads the same. */
function canonicalRotation(cycle: string[]): string[] {
  let best = cycle;
  let bestKey = cycle.join('\0');
  for (let shift = 1; shift < cycle.length; shift++) {
    const rotated = [...cycle.slice(shift), ...cycle.slice(0, shift)];
    const key = rotated.join('\0');
    if (key < bestKey) [best, bestKey] = [rotated, key];
  }
  return best;
}

/** The shortest period (1–5) that repeats at least twice from `start`, or 0. */
function periodAt(components: readonly string[], start: number): number {
  for (let period = 1; period <= LONGEST_CYCLE; period++) {
    if (start + 2 * period > components.length) break;
    let repeats = true;
    for (let i = 0; i < period && repeats; i++) repeats = components[start + i] === components[start + period + i];
    if (repeats) return period;
  }
  return 0;
}

/**
 * Replaces every run that repeats a cycle (including the partial turns at its ends) by one turn of
 * the cycle in its canonical rotation: `a b c a b c a b` and `c a b c a b c a` both become `a b c`.
 */
export function collapseCycles(components: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < components.length) {
    const period = periodAt(components, i);
    if (period === 0) {
      out.push(components[i]);
      i++;
      continue;
    }
    // The run goes on as long as each frame repeats the one a period before it.
    let end = i + 2 * period;
    while (end < components.length && components[end] === components[end - period]) end++;
    // A partial turn before the run (the window started inside the cycle) belongs to it too.
    let start = i;
    while (start > 0 && out.length > 0 && components[start - 1] === components[start - 1 + period]) {
      start--;
      out.pop();
    }
    out.push(...canonicalRotation(components.slice(start, start + period)));
    i = end;
  }
  return out;
}
