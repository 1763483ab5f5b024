// A glob run as an automaton that keeps the set of states it can be in (Thompson's construction):
// its time is the value's length times the pattern's, whatever either holds. A backtracking regex
// of several `*` (what picomatch compiles) is exponential on a value that almost matches, and the
// values are what senders write.

/** One step of a glob. */
export type GlobToken =
  /** One character: a literal, `?` or a bracket expression. */
  | { kind: 'char'; matches: (code: number) => boolean }
  /** `*`: any run, within one path segment unless `crossesSlash`. */
  | { kind: 'star'; crossesSlash: boolean }
  /** A whole-segment `**` and the `/` after it: nothing, or any run that ends in `/`. */
  | { kind: 'segments' }
  /** A `/` and a whole-segment `**` at the end: nothing, or `/` and any run. */
  | { kind: 'tail' };

const SLASH = 0x2f;
const ANY = (): boolean => true;
const NOT_SLASH = (code: number): boolean => code !== SLASH;
const IS_SLASH = (code: number): boolean => code === SLASH;

/** A node consumes one character (`test`, then `out`) or splits into `out` and `alt` without consuming; -1 is the end. */
interface Node {
  test: ((code: number) => boolean) | undefined;
  out: number;
  alt: number;
}

const ACCEPT = -1;

export class GlobMachine {
  private readonly nodes: Node[] = [];
  private readonly start: number;
  /** Which step last added each node, so that a state is kept once per step. */
  private readonly seen: Int32Array;
  private generation = 0;
  /** The states of the current step and of the next one, swapped at each character. */
  private current: Int32Array;
  private following: Int32Array;
  private readonly pending: Int32Array;

  constructor(tokens: readonly GlobToken[]) {
    let next = ACCEPT;
    for (let i = tokens.length - 1; i >= 0; i--) next = this.compile(tokens[i], next);
    this.start = next;
    const size = this.nodes.length + 1;
    this.seen = new Int32Array(size);
    this.current = new Int32Array(size);
    this.following = new Int32Array(size);
    this.pending = new Int32Array(2 * size + 2);
  }

  /** Whether the whole of `value` matches. */
  matches(value: string): boolean {
    this.generation++;
    let accepted = this.add(this.start, this.current, 0);
    let count = this.added;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      this.generation++;
      accepted = false;
      let next = 0;
      for (let s = 0; s < count; s++) {
        const node = this.nodes[this.current[s]];
        if (node.test !== undefined && node.test(code)) {
          accepted = this.add(node.out, this.following, next) || accepted;
          next = this.added;
        }
      }
      if (next === 0 && !accepted) return false;
      const swap = this.current;
      this.current = this.following;
      this.following = swap;
      count = next;
    }
    return accepted;
  }

  private node(test: Node['test'], out: number, alt = ACCEPT): number {
    this.nodes.push({ test, out, alt });
    return this.nodes.length - 1;
  }

  /** The nodes of one token, leading to `next`; returns the token's entry. */
  private compile(token: GlobToken, next: number): number {
    switch (token.kind) {
      case 'char':
        return this.node(token.matches, next);
      case 'star':
        return this.loop(token.crossesSlash ? ANY : NOT_SLASH, next);
      case 'segments': {
        const end = this.node(IS_SLASH, next);
        const run = this.split(ACCEPT, end);
        this.nodes[run].out = this.node(ANY, run);
        return this.split(next, run);
      }
      case 'tail':
        return this.split(next, this.node(IS_SLASH, this.loop(ANY, next)));
    }
  }

  /** Zero or more characters that pass `test`, then `next`. */
  private loop(test: (code: number) => boolean, next: number): number {
    const entry = this.split(ACCEPT, next);
    this.nodes[entry].out = this.node(test, entry);
    return entry;
  }

  private split(out: number, alt: number): number {
    return this.node(undefined, out, alt);
  }

  /** How many states `into` holds after the last `add`. */
  private added = 0;

  /**
   * Adds `entry` and what it splits into (without consuming) to `into`, which holds `count`
   * states; true when the end is among them.
   */
  private add(entry: number, into: Int32Array, count: number): boolean {
    let accepted = false;
    let top = 0;
    this.pending[top++] = entry;
    while (top > 0) {
      const index = this.pending[--top];
      if (index === ACCEPT) {
        accepted = true;
        continue;
      }
      if (this.seen[index] === this.generation) continue;
      this.seen[index] = this.generation;
      const node = this.nodes[index];
      if (node.test !== undefined) into[count++] = index;
      else {
        this.pending[top++] = node.alt;
        this.pending[top++] = node.out;
      }
    }
    this.added = count;
    return accepted;
  }
}
