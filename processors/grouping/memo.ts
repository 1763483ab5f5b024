// The same file and function names come back in event after event, and their regexes would be a
// third of grouping's time: pure functions get a bounded memory.

const REMEMBERED = 20_000;

/** Wraps a pure string function with a bounded memory (cleared when full; long inputs are not kept). */
export function memoize<T>(compute: (input: string) => T): (input: string) => T {
  const memory = new Map<string, T>();
  return (input) => {
    if (memory.has(input)) return memory.get(input) as T;
    const result = compute(input);
    if (memory.size >= REMEMBERED) memory.clear();
    if (input.length <= 1024) memory.set(input, result);
    return result;
  };
}
