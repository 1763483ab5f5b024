// A parsed source map on the main thread: a TraceMap built from the worker's decoded mappings,
// position lookups, and the original sources' text for context lines.
//
// The worker sends the segments as one Int32Array; turning them into the `number[][][]` a
// TraceMap holds allocates one small array per segment, which for a 5 MB map (~400k segments)
// takes ~50 ms. That work is done in slices of SLICE_SEGMENTS with a yield to the event loop
// between slices, so no slice holds the loop for more than a few milliseconds. The TraceMap is
// then made with `presortedDecodedMap` (the worker sorted every line), which costs nothing more.
import { GREATEST_LOWER_BOUND, originalPositionFor, presortedDecodedMap, type SourceMapSegment, type TraceMap } from '@jridgewell/trace-mapping';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DecodedSourceMap } from './worker.js';

/** Segments materialized between two yields to the event loop (~2 ms on the bench machine). */
export const SLICE_SEGMENTS = 20_000;

/**
 * Heap bytes per decoded segment held by a TraceMap (a 4- or 5-element array of small integers
 * and its slot in the line), measured with `--expose-gc` on esbuild maps: see README.md.
 */
export const BYTES_PER_SEGMENT = 72;

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
  /** Source index by resolved source, for TraceMap's string answers. */
  private readonly sourceIndex = new Map<string, number>();
  private readonly texts: (SourceText | null | undefined)[];

  private constructor(
    readonly map: TraceMap,
    readonly lines: readonly (readonly SourceMapSegment[])[],
    readonly sources: readonly string[],
    readonly names: readonly string[],
    readonly debugId: string | null,
    private readonly content: Uint8Array,
    private readonly contentOffsets: Int32Array,
  ) {
    sources.forEach((source, i) => {
      if (!this.sourceIndex.has(source)) this.sourceIndex.set(source, i);
    });
    this.texts = new Array(sources.length);
  }

  /** Builds the TraceMap from the worker's output, yielding to the event loop between slices. */
  static async build(decoded: DecodedSourceMap): Promise<ParsedSourceMap> {
    const lines = await materialize(decoded.lineStarts, decoded.segments);
    const map = presortedDecodedMap({ version: 3, file: decoded.file, names: decoded.names, sources: decoded.sources, mappings: lines });
    return new ParsedSourceMap(map, lines, map.resolvedSources, decoded.names, decoded.debugId, decoded.content, decoded.contentOffsets);
  }

  /** Heap bytes this map holds, for the cache's bound. */
  get bytes(): number {
    let strings = 0;
    for (const s of this.sources) strings += 2 * s.length + 32;
    for (const n of this.names) strings += 2 * n.length + 32;
    return this.segmentCount * BYTES_PER_SEGMENT + this.lines.length * 32 + strings + this.content.byteLength * 3;
  }

  get segmentCount(): number {
    let n = 0;
    for (const line of this.lines) n += line.length;
    return n;
  }

  /**
   * The original position of a generated one, both as stack traces give them (1-based line and
   * column), or undefined when the map has nothing there.
   */
  originalPosition(line: number, column: number): OriginalPosition | undefined {
    if (!(line >= 1) || !(column >= 1)) return undefined;
    const found = originalPositionFor(this.map, { line, column: column - 1, bias: GREATEST_LOWER_BOUND });
    if (found.source === null) return undefined;
    const sourceIndex = this.sourceIndex.get(found.source) ?? -1;
    return { sourceIndex, source: found.source, line: found.line, column: found.column, name: found.name };
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

async function materialize(lineStarts: Int32Array, segments: Int32Array): Promise<SourceMapSegment[][]> {
  const lineCount = lineStarts.length - 1;
  const lines: SourceMapSegment[][] = new Array(lineCount);
  let budget = SLICE_SEGMENTS;
  for (let i = 0; i < lineCount; i++) {
    const from = lineStarts[i];
    const to = lineStarts[i + 1];
    const line: SourceMapSegment[] = new Array(to - from);
    for (let s = from; s < to; s++) {
      const o = 5 * s;
      const source = segments[o + 1];
      const name = segments[o + 4];
      line[s - from] =
        source < 0
          ? [segments[o]]
          : name < 0
            ? [segments[o], source, segments[o + 2], segments[o + 3]]
            : [segments[o], source, segments[o + 2], segments[o + 3], name];
      if (--budget === 0) {
        budget = SLICE_SEGMENTS;
        await nextTurn();
      }
    }
    lines[i] = line;
  }
  return lines;
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

  /** Offset of line `n` (1-based) in the text. */
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
