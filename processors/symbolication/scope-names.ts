// Scope-based function names, the main thread's half (scopes-worker.ts parses the generated file).
//
// A frame's function is the original name of the function *enclosing* its position in the
// generated file — not the name token at the position (at a call site that is the callee) and
// not what the runtime printed (minified, or the bundler's rename). The innermost function scope
// holding the position is found by binary search; the bindings in its name are mapped through the
// source map one by one, by the mapping that starts exactly at the binding:
//   1. it points into an original source with `sourcesContent` at an identifier: that identifier,
//      as written (a minifier's `i` and a bundler's `_Order` or `Order2` both map to `Order`);
//   2. else its name in `names`, which minifiers record for every identifier they rename;
//   3. else the binding as generated (it was not renamed).
// An anonymous function of the generated file that the original declares as a named `function`
// (a minifier dropped the name) gets that name, read where the function's start maps to.
// An anonymous scope gives no name at all (null), as Sentry does: an anonymous callback is not
// its caller.
import type { OriginalPosition, ParsedSourceMap } from './source-map.js';
import { LINE_FACTOR, type ScopeIndex } from './scopes-worker.js';

const NAMED_FUNCTION = /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/;
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
    if (first === end) return declaredName(map, this.index.starts[scope]);
    let name = '';
    for (let c = first; c < end; c++) {
      const text = strings[components[3 * c + 2]];
      name += components[3 * c] === 1 ? text : originalIdentifier(map, components[3 * c + 1], text);
    }
    return name;
  }
}

/**
 * An anonymous function of the generated file that is a named `function` declaration or
 * expression in the original source (a minifier dropped the name of a function it moved or
 * used once): that name, read where the function's start maps to; else null.
 */
function declaredName(map: ParsedSourceMap, start: number): string | null {
  const original = mappedExactly(map, start);
  if (original === undefined) return null;
  const line = map.sourceText(original.sourceIndex)?.line(original.line);
  return (line && NAMED_FUNCTION.exec(line.slice(original.column, original.column + 256))?.[1]) || null;
}

/** The original position of a segment starting exactly at a generated position (`line * 2^32 + column`), or undefined. */
function mappedExactly(map: ParsedSourceMap, position: number): OriginalPosition | undefined {
  const line0 = Math.floor(position / LINE_FACTOR);
  const column0 = position - line0 * LINE_FACTOR;
  const segment = map.segmentAt(line0, column0);
  if (segment < 0 || map.generatedColumn(segment) !== column0) return undefined;
  return map.originalPosition(line0 + 1, column0 + 1);
}

/** The original name of the identifier `generated` at a position (`line * 2^32 + column`, 0-based). */
function originalIdentifier(map: ParsedSourceMap, position: number, generated: string): string {
  const original = mappedExactly(map, position);
  if (original === undefined) return generated;
  // The text the mapping points at comes first: a bundler's rename (`_Order`) may be what the
  // map's `names` records, the source still says `Order`.
  const line = map.sourceText(original.sourceIndex)?.line(original.line);
  const word = line === undefined ? undefined : IDENTIFIER_AT.exec(line.slice(original.column, original.column + 256))?.[0];
  if (word !== undefined && !NOT_A_NAME.has(word)) return word;
  return original.name ?? generated;
}
