// Scope-based function names, the main thread's half (scopes-worker.ts parses the generated file).
//
// A frame's function is the original name of the function *enclosing* its position in the
// generated file — not the name token at the position (at a call site that is the callee) and
// not what the runtime printed (minified, or the bundler's rename). The innermost function scope
// holding the position is found by binary search; its name's identifiers are mapped through the
// source map one by one:
//   1. the mapping at the identifier's exact position has a name (`names`): that name — what
//      minifiers record for every identifier they rename;
//   2. it has no name but points into an original source with `sourcesContent`: the identifier
//      written there (a bundler's rename, `_Order` or `Order2`, usually maps to `Order`);
//   3. otherwise the identifier as generated (it was not renamed).
// An anonymous scope gives no name at all (null), as Sentry does: an anonymous callback is not
// its caller.
import type { ParsedSourceMap } from './source-map.js';
import { LINE_FACTOR, type ScopeIndex } from './scopes-worker.js';

const IDENTIFIER_AT = /^[A-Za-z_$\u00a0-\uffff][\w$\u00a0-\uffff]*/;
/** Words a mapping may point at that are not the name (`class Order`, `export function f`). */
const NOT_A_NAME = new Set([
  'async',
  'await',
  'class',
  'const',
  'default',
  'export',
  'extends',
  'function',
  'get',
  'let',
  'new',
  'return',
  'set',
  'static',
  'this',
  'var',
  'yield',
]);

/** Resolved names remembered per map (a file's scopes serve the one map made with it). */
const MAX_NAMES = 20_000;
/** What a remembered name is charged (the entry and a short string). */
const NAME_BYTES = 96;

export class ScopeNames {
  private readonly names = new WeakMap<ParsedSourceMap, Map<number, string | null>>();

  constructor(private readonly index: ScopeIndex) {}

  /** Memory held, for the cache's bound: the index, its strings, and the names it may remember. */
  get bytes(): number {
    const i = this.index;
    let strings = Math.min(i.starts.length, MAX_NAMES) * NAME_BYTES;
    for (const s of i.strings) strings += 2 * s.length + 40;
    return i.starts.byteLength + i.ends.byteLength + i.parents.byteLength + i.nameStarts.byteLength + i.nameEnds.byteLength + i.components.byteLength + strings;
  }

  get count(): number {
    return this.index.starts.length;
  }

  /**
   * The original name of the function enclosing a generated position (1-based line and column,
   * as stack frames give them): a string, null for an anonymous function, undefined outside
   * every function (top-level code).
   */
  functionAt(map: ParsedSourceMap, line: number, column: number): string | null | undefined {
    const scope = this.scopeAt((line - 1) * LINE_FACTOR + (column - 1));
    if (scope < 0) return undefined;
    let known = this.names.get(map);
    if (known === undefined) this.names.set(map, (known = new Map()));
    let name = known.get(scope);
    if (name === undefined) {
      name = this.resolve(map, scope);
      if (known.size >= MAX_NAMES) known.clear();
      known.set(scope, name);
    }
    return name;
  }

  /** The innermost scope holding `position`, or -1. */
  private scopeAt(position: number): number {
    const { starts, ends, parents } = this.index;
    let low = 0;
    let high = starts.length - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      if (starts[mid] <= position) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    // The last scope starting at or before the position holds it, or one of its ancestors does.
    while (found >= 0 && ends[found] <= position) found = parents[found];
    return found;
  }

  private resolve(map: ParsedSourceMap, scope: number): string | null {
    const { nameStarts, nameEnds, components, strings } = this.index;
    const first = nameStarts[scope];
    const end = nameEnds[scope];
    if (first === end) return null;
    let name = '';
    for (let c = first; c < end; c++) {
      const text = strings[components[3 * c + 2]];
      name += components[3 * c] === 1 ? text : originalIdentifier(map, components[3 * c + 1], text);
    }
    return name;
  }
}

/** The original name of the identifier `generated` at a position (`line * 2^32 + column`, 0-based). */
function originalIdentifier(map: ParsedSourceMap, position: number, generated: string): string {
  const line0 = Math.floor(position / LINE_FACTOR);
  const column0 = position - line0 * LINE_FACTOR;
  const segment = map.segmentAt(line0, column0);
  if (segment < 0 || map.generatedColumn(segment) !== column0) return generated;
  const named = map.segmentName(segment);
  if (named !== null) return named;
  const original = map.originalPosition(line0 + 1, column0 + 1);
  if (original === undefined) return generated;
  const line = map.sourceText(original.sourceIndex)?.line(original.line);
  if (line === undefined) return generated;
  const word = IDENTIFIER_AT.exec(line.slice(original.column, original.column + 256))?.[0];
  return word === undefined || NOT_A_NAME.has(word) ? generated : word;
}
