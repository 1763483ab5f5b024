// A parsed source map on the main thread: the decoded mappings as the worker sent them (flat
// typed arrays), position lookups over them, and the original sources' text for context lines.
//
// The worker decodes with @jridgewell/trace-mapping (TraceMap, or AnyMap for index maps) and
// flattens `decodedMappings` into one Int32Array. The main thread does not rebuild a TraceMap
// from it: that means one small array per segment (~400k for a 5 MB map): main-thread work and,
// worse, garbage-collector pauses (the scavenger promoting them) that grow with the map, at ~91
// heap bytes per segment. Looked up in place, a segment costs 20 bytes
// and nothing is allocated. `originalPosition` answers exactly what trace-mapping's
// `originalPositionFor` answers with its default bias (GREATEST_LOWER_BOUND): the tests check
// that on every segment of a real map.
import type { DecodedSourceMap } from './worker.js';

/** Int32 fields per segment in `segments` (see DecodedSourceMap). */
const FIELDS = 5;

export interface OriginalPosition {
  sourceIndex: number;
  source: string;
  /** 1-based. */
  line: number;
  /** 0-based, as in source maps. */
  column: number;
  name: string | null;
}

export class ParsedSourceMap {
  readonly sources: readonly string[];
  readonly names: readonly string[];
  readonly debugId: string | null;
  private readonly lineStarts: Int32Array;
  private readonly segments: Int32Array;
  private readonly content: Uint8Array;
  private readonly contentOffsets: Int32Array;
  private readonly texts: (SourceText | null | undefined)[];

  constructor(decoded: DecodedSourceMap) {
    this.sources = decoded.sources;
    this.names = decoded.names;
    this.debugId = decoded.debugId;
    this.lineStarts = decoded.lineStarts;
    this.segments = decoded.segments;
    this.content = decoded.content;
    this.contentOffsets = decoded.contentOffsets;
    this.texts = new Array(decoded.sources.length);
  }

  /** Memory this map holds, for the cache's bound: the typed arrays, the strings, and the decoded source texts (at most twice the content). */
  get bytes(): number {
    let strings = 0;
    for (const s of this.sources) strings += 2 * s.length + 40;
    for (const n of this.names) strings += 2 * n.length + 40;
    return this.segments.byteLength + this.lineStarts.byteLength + 3 * this.content.byteLength + this.contentOffsets.byteLength + strings;
  }

  get lineCount(): number {
    return this.lineStarts.length - 1;
  }

  get segmentCount(): number {
    return this.segments.length / FIELDS;
  }

  /** The segments of a generated line (0-based): [first, end) segment indexes. */
  lineSegments(line0: number): [number, number] {
    if (line0 < 0 || line0 >= this.lineCount) return [0, 0];
    return [this.lineStarts[line0], this.lineStarts[line0 + 1]];
  }

  /** A segment's generated column (0-based). */
  generatedColumn(segment: number): number {
    return this.segments[FIELDS * segment];
  }

  /** A segment's name, or null. */
  segmentName(segment: number): string | null {
    const name = this.segments[FIELDS * segment + 4];
    return name < 0 ? null : this.names[name];
  }

  /**
   * The segment at a generated position (0-based line and column): the last one at or before the
   * column, the first of several at the same column (trace-mapping's GREATEST_LOWER_BOUND), or -1.
   */
  segmentAt(line0: number, column0: number): number {
    const [first, end] = this.lineSegments(line0);
    let low = first;
    let high = end - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const column = this.segments[FIELDS * mid];
      if (column <= column0) {
        found = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    if (found < 0) return -1;
    const column = this.segments[FIELDS * found];
    while (found > first && this.segments[FIELDS * (found - 1)] === column) found--;
    return found;
  }

  /**
   * The original position of a generated one, both as stack traces give them (1-based line and
   * column), or undefined when the map has nothing there.
   */
  originalPosition(line: number, column: number): OriginalPosition | undefined {
    if (!Number.isInteger(line) || !Number.isInteger(column) || line < 1 || column < 1) return undefined;
    const s = this.segmentAt(line - 1, column - 1);
    if (s < 0) return undefined;
    const o = FIELDS * s;
    const sourceIndex = this.segments[o + 1];
    if (sourceIndex < 0) return undefined;
    const name = this.segments[o + 4];
    return {
      sourceIndex,
      source: this.sources[sourceIndex],
      line: this.segments[o + 2] + 1,
      column: this.segments[o + 3],
      name: name < 0 ? null : this.names[name],
    };
  }

  /** The original source's text (from `sourcesContent`), decoded on first use. */
  sourceText(index: number): SourceText | undefined {
    if (index < 0 || index >= this.texts.length) return undefined;
    let text = this.texts[index];
    if (text === undefined) {
      const start = this.contentOffsets[2 * index];
      const end = this.contentOffsets[2 * index + 1];
      text = start < 0 ? null : new SourceText(Buffer.from(this.content.buffer, this.content.byteOffset + start, end - start).toString('utf8'));
      this.texts[index] = text;
    }
    return text ?? undefined;
  }
}

/** A text split into lines lazily: line starts are found once, lines are sliced on demand. */
export class SourceText {
  private starts: Int32Array | undefined;

  constructor(readonly text: string) {}

  get lineCount(): number {
    return this.lineStarts().length;
  }

  /** Line `n` (1-based) without its line break, or undefined past the end. */
  line(n: number): string | undefined {
    const starts = this.lineStarts();
    if (n < 1 || n > starts.length) return undefined;
    const start = starts[n - 1];
    let end = n < starts.length ? starts[n] - 1 : this.text.length;
    if (end > start && this.text.charCodeAt(end - 1) === 13) end--;
    return this.text.slice(start, Math.max(start, end));
  }

  /** Offset of line `n` (1-based) in the text, or -1. */
  offsetOf(n: number): number {
    const starts = this.lineStarts();
    return n >= 1 && n <= starts.length ? starts[n - 1] : -1;
  }

  private lineStarts(): Int32Array {
    if (this.starts !== undefined) return this.starts;
    const found: number[] = [0];
    const text = this.text;
    let at = text.indexOf('\n');
    while (at >= 0) {
      found.push(at + 1);
      at = text.indexOf('\n', at + 1);
    }
    this.starts = Int32Array.from(found);
    return this.starts;
  }
}
