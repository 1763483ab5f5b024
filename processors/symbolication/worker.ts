// The parsing worker: what runs off the event loop. A source map is JSON-parsed and decoded here
// (by @jridgewell/trace-mapping, which also flattens index maps with `sections`); a ProGuard
// mapping or a Breakpad symbol file is scanned once here into an index of byte offsets. What
// comes back to the main thread is typed arrays (transferred, not copied) plus the few strings a
// TraceMap needs (sources, names): no object graph whose deserialization would itself stall the
// event loop. See pool.ts for the main-thread side and README.md for the measurements.
//
// `workerMain` is started with `new Worker(`(${workerMain})(require)`, { eval: true })`: the
// same function text runs from dist/ and from the TypeScript sources under vitest (a worker
// cannot load a .ts file on Node 20). It must therefore be self-contained: it may use only its
// parameter, globals (Buffer, TextEncoder) and what it requires, never this module's imports or
// constants. (Its imports below are types only: erased, never loaded in the worker.)
import type * as TraceMappingModule from '@jridgewell/trace-mapping';
import type * as WorkerThreadsModule from 'node:worker_threads';
import type { ScopeIndex, scopeExtraction } from './scopes-worker.js';

/** What the pool asks a worker to do. */
export type JobKind = 'sourcemap' | 'proguard' | 'breakpad' | 'scopes';

export interface JobRequest {
  id: number;
  kind: JobKind;
  /** The file's bytes (a copy the worker owns). */
  bytes: Uint8Array<ArrayBuffer>;
}

export type JobResponse =
  { id: number; ok: true; result: DecodedSourceMap | ProguardIndex | BreakpadIndex | ScopeIndex } | { id: number; ok: false; message: string };

/** What the worker sends for a source map; `segments` holds 5 ints per mapping segment. */
export interface DecodedSourceMap {
  file: string | null;
  /** The map's `debugId` (lower case), when it has one. */
  debugId: string | null;
  /** `sources`, with `sourceRoot` applied (index maps: every section's, in flattened order). */
  sources: string[];
  names: string[];
  /** Generated line i's segments are `lineStarts[i]` up to `lineStarts[i + 1]` (segment indexes). */
  lineStarts: Int32Array<ArrayBuffer>;
  /**
   * Per segment: generated column, source index, original line, original column, name index
   * (all 0-based; -1 where the segment has no such field). Sorted by column within each line.
   */
  segments: Int32Array<ArrayBuffer>;
  /** Every `sourcesContent` entry, UTF-8, one after the other. */
  content: Uint8Array<ArrayBuffer>;
  /** Per source: [start, end) of its content in `content`, or [-1, -1] without content. */
  contentOffsets: Int32Array<ArrayBuffer>;
}

/**
 * A ProGuard/R8 mapping file's class index. Every range is a [start, end) byte offset pair into
 * the file the main thread keeps; per class, in the order of `obfuscated` name bytes.
 */
export interface ProguardIndex {
  classes: number;
  /** 2 per class: the obfuscated name. */
  obfuscated: Float64Array<ArrayBuffer>;
  /** 2 per class: the original name. */
  original: Float64Array<ArrayBuffer>;
  /** 2 per class: the `# {"id":"sourceFile",…}` comment line, or -1, -1. */
  sourceFile: Float64Array<ArrayBuffer>;
  /** 2 per class: the member lines that follow the class line. */
  members: Float64Array<ArrayBuffer>;
  /** Class indexes in the order of original name bytes. */
  byOriginal: Int32Array<ArrayBuffer>;
}

/** A Breakpad symbol file's index: records by address, byte offsets into the file the main thread keeps. */
export interface BreakpadIndex {
  module: { os: string; arch: string; id: string; name: string };
  /** FUNC records, sorted by address: address, size, and the [start, end) of the FUNC line and its line/INLINE records. */
  funcAddress: Float64Array<ArrayBuffer>;
  funcSize: Float64Array<ArrayBuffer>;
  funcStart: Float64Array<ArrayBuffer>;
  funcEnd: Float64Array<ArrayBuffer>;
  /** PUBLIC records, sorted by address: address and the [start, end) of the record's line. */
  publicAddress: Float64Array<ArrayBuffer>;
  publicStart: Float64Array<ArrayBuffer>;
  publicEnd: Float64Array<ArrayBuffer>;
  /** FILE records by number: 2 per number, the [start, end) of the name, or -1, -1. */
  files: Float64Array<ArrayBuffer>;
  /** INLINE_ORIGIN records by number: 2 per number, the [start, end) of the name, or -1, -1. */
  origins: Float64Array<ArrayBuffer>;
}

/**
 * The worker's body. `req` is the eval'd worker's CommonJS `require`; `scopes` is
 * scopes-worker.ts's `scopeExtraction` (its text put into the worker's source next to this one).
 */
export function workerMain(req: (id: string) => unknown, scopes: typeof scopeExtraction): void {
  const threads = req('node:worker_threads') as typeof WorkerThreadsModule;
  const port = threads.parentPort;
  if (port === null) return;
  const { traceMappingPath, acornPath } = threads.workerData as { traceMappingPath: string; acornPath: string };
  const tm = req(traceMappingPath) as typeof TraceMappingModule;
  const extractScopes = scopes(req(acornPath) as Parameters<typeof scopeExtraction>[0]);

  port.on('message', (job: JobRequest) => {
    try {
      if (job.kind === 'sourcemap') {
        const result = decodeSourceMap(job.bytes);
        port.postMessage({ id: job.id, ok: true, result }, [
          result.lineStarts.buffer,
          result.segments.buffer,
          result.content.buffer,
          result.contentOffsets.buffer,
        ]);
      } else if (job.kind === 'scopes') {
        const result = extractScopes(job.bytes);
        port.postMessage({ id: job.id, ok: true, result }, transferable(result));
      } else if (job.kind === 'proguard') {
        const result = indexProguard(job.bytes);
        port.postMessage({ id: job.id, ok: true, result }, [
          result.obfuscated.buffer,
          result.original.buffer,
          result.sourceFile.buffer,
          result.members.buffer,
          result.byOriginal.buffer,
        ]);
      } else {
        const result = indexBreakpad(job.bytes);
        port.postMessage({ id: job.id, ok: true, result }, [
          result.funcAddress.buffer,
          result.funcSize.buffer,
          result.funcStart.buffer,
          result.funcEnd.buffer,
          result.publicAddress.buffer,
          result.publicStart.buffer,
          result.publicEnd.buffer,
          result.files.buffer,
          result.origins.buffer,
        ]);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      port.postMessage({ id: job.id, ok: false, message: message.slice(0, 500) });
    }
  });

  /** The buffers of a result's typed arrays: moved to the main thread, not copied. */
  function transferable(result: object): ArrayBuffer[] {
    const out: ArrayBuffer[] = [];
    for (const value of Object.values(result)) if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) out.push(value.buffer);
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Source maps
  // -------------------------------------------------------------------------------------------

  function decodeSourceMap(bytes: Uint8Array): DecodedSourceMap {
    let text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    // The XSSI guard some servers prepend (`)]}'`) is allowed by the spec.
    if (text.startsWith(')]}')) text = text.slice(text.indexOf('\n') + 1);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new Error(`not JSON: ${(error as Error).message}`, { cause: error });
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new Error('not a JSON object');
    const raw = json as Record<string, unknown>;
    if (raw.version !== 3) throw new Error(`version is ${JSON.stringify(raw.version)}, not 3`);
    const sectioned = Array.isArray(raw.sections);
    if (!sectioned) {
      if (typeof raw.mappings !== 'string') throw new Error('has no "mappings" string');
      if (!Array.isArray(raw.sources)) throw new Error('has no "sources" list');
    }
    // Both copy what they keep; `json` itself is garbage once this returns.
    const map = sectioned ? new tm.AnyMap(raw as never) : new tm.TraceMap(raw as never);
    const lines = tm.decodedMappings(map) as unknown as readonly (readonly number[])[][];
    const sources = map.resolvedSources.map((s) => s ?? '');
    const names = (map.names ?? []).map((n) => String(n));

    let count = 0;
    for (const line of lines) count += line.length;
    const lineStarts = new Int32Array(lines.length + 1);
    const segments = new Int32Array(count * 5);
    let k = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      lineStarts[i] = k / 5;
      let sorted = true;
      for (let j = 1; j < line.length; j++) if (line[j][0] < line[j - 1][0]) sorted = false;
      const ordered = sorted ? line : [...line].sort((a, b) => a[0] - b[0]);
      for (const segment of ordered) {
        const column = segment[0];
        if (!(column >= 0)) throw new Error(`line ${i + 1}: a negative generated column`);
        segments[k] = column;
        if (segment.length >= 4) {
          const [, source, origLine, origColumn] = segment;
          if (!(source >= 0 && source < sources.length)) throw new Error(`line ${i + 1}: source index ${source} outside the ${sources.length} sources`);
          if (!(origLine >= 0) || !(origColumn >= 0)) throw new Error(`line ${i + 1}: a negative original position`);
          segments[k + 1] = source;
          segments[k + 2] = origLine;
          segments[k + 3] = origColumn;
          if (segment.length >= 5) {
            const name = segment[4];
            if (!(name >= 0 && name < names.length)) throw new Error(`line ${i + 1}: name index ${name} outside the ${names.length} names`);
            segments[k + 4] = name;
          } else segments[k + 4] = -1;
        } else if (segment.length === 1) {
          segments[k + 1] = segments[k + 2] = segments[k + 3] = segments[k + 4] = -1;
        } else {
          throw new Error(`line ${i + 1}: a segment of ${segment.length} fields`);
        }
        k += 5;
      }
    }
    lineStarts[lines.length] = k / 5;

    const contents = map.sourcesContent ?? [];
    const encoder = new TextEncoder();
    const encoded: (Uint8Array | null)[] = sources.map((_, i) => (typeof contents[i] === 'string' ? encoder.encode(contents[i]) : null));
    let total = 0;
    for (const part of encoded) total += part?.byteLength ?? 0;
    const content = new Uint8Array(total);
    const contentOffsets = new Int32Array(sources.length * 2);
    let at = 0;
    for (let i = 0; i < encoded.length; i++) {
      const part = encoded[i];
      if (part === null) {
        contentOffsets[2 * i] = contentOffsets[2 * i + 1] = -1;
        continue;
      }
      content.set(part, at);
      contentOffsets[2 * i] = at;
      at += part.byteLength;
      contentOffsets[2 * i + 1] = at;
    }
    const debugId = typeof raw.debugId === 'string' ? raw.debugId : typeof raw.debug_id === 'string' ? raw.debug_id : null;
    return {
      file: typeof map.file === 'string' ? map.file : null,
      debugId: debugId === null ? null : debugId.toLowerCase(),
      sources,
      names,
      lineStarts,
      segments,
      content,
      contentOffsets,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Shared line scanning (bytes; `\n` or `\r\n` line ends)
  // -------------------------------------------------------------------------------------------

  function lineEnd(bytes: Uint8Array, start: number): number {
    const nl = bytes.indexOf(10, start);
    return nl < 0 ? bytes.byteLength : nl;
  }

  function trimmedEnd(bytes: Uint8Array, start: number, end: number): number {
    while (end > start && (bytes[end - 1] === 13 || bytes[end - 1] === 32 || bytes[end - 1] === 9)) end--;
    return end;
  }

  function startsWith(bytes: Uint8Array, at: number, end: number, ascii: string): boolean {
    if (end - at < ascii.length) return false;
    for (let i = 0; i < ascii.length; i++) if (bytes[at + i] !== ascii.charCodeAt(i)) return false;
    return true;
  }

  function sortedBy(count: number, bytes: Uint8Array, ranges: Float64Array): Int32Array<ArrayBuffer> {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const order = new Int32Array(count);
    for (let i = 0; i < count; i++) order[i] = i;
    order.sort((a, b) => buffer.compare(buffer, ranges[2 * b], ranges[2 * b + 1], ranges[2 * a], ranges[2 * a + 1]));
    return order;
  }

  function permute(ranges: Float64Array, order: Int32Array): Float64Array<ArrayBuffer> {
    const out = new Float64Array(ranges.length);
    for (let i = 0; i < order.length; i++) {
      out[2 * i] = ranges[2 * order[i]];
      out[2 * i + 1] = ranges[2 * order[i] + 1];
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // ProGuard / R8 mapping files
  // -------------------------------------------------------------------------------------------

  function indexProguard(bytes: Uint8Array): ProguardIndex {
    const obf: number[] = [];
    const orig: number[] = [];
    const file: number[] = [];
    const members: number[] = [];
    let current = -1;
    let otherLines = 0;
    let at = 0;
    const n = bytes.byteLength;
    while (at < n) {
      const end = lineEnd(bytes, at);
      const stop = trimmedEnd(bytes, at, end);
      const first = bytes[at];
      if (stop > at && first !== 32 && first !== 9 && first !== 35 /* # */) {
        // `original.Name -> obf.Name:`
        const arrow = Buffer.from(bytes.buffer, bytes.byteOffset + at, stop - at).indexOf(' -> ');
        if (arrow > 0 && bytes[stop - 1] === 58 /* : */) {
          if (current >= 0) members[2 * current + 1] = at;
          current = obf.length / 2;
          orig.push(at, at + arrow);
          obf.push(at + arrow + 4, stop - 1);
          file.push(-1, -1);
          members.push(end + 1 > n ? n : end + 1, n);
        } else otherLines++;
      } else if (first === 35 && current >= 0 && file[2 * current] < 0 && startsWith(bytes, at, stop, '# {') && members[2 * current] === at) {
        // Class metadata right after the class line: R8's `# {"id":"sourceFile","fileName":"A.kt"}`.
        const text = Buffer.from(bytes.buffer, bytes.byteOffset + at, stop - at).toString('utf8');
        if (text.includes('"sourceFile"')) {
          file[2 * current] = at;
          file[2 * current + 1] = stop;
        }
        members[2 * current] = end + 1 > n ? n : end + 1;
      }
      at = end + 1;
    }
    if (current >= 0) members[2 * current + 1] = n;
    const classes = obf.length / 2;
    if (classes === 0 && (otherLines > 0 || n > 0)) throw new Error('no class lines (`original.Class -> obfuscated:`)');
    const obfRanges = Float64Array.from(obf);
    const order = sortedBy(classes, bytes, obfRanges);
    const originalRanges = permute(Float64Array.from(orig), order);
    const byOriginal = sortedBy(classes, bytes, originalRanges);
    return {
      classes,
      obfuscated: permute(obfRanges, order),
      original: originalRanges,
      sourceFile: permute(Float64Array.from(file), order),
      members: permute(Float64Array.from(members), order),
      byOriginal,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Breakpad symbol files
  // -------------------------------------------------------------------------------------------

  const MAX_RECORD_NUMBER = 50_000_000;

  function indexBreakpad(bytes: Uint8Array): BreakpadIndex {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const n = bytes.byteLength;
    const firstEnd = trimmedEnd(bytes, 0, lineEnd(bytes, 0));
    if (!startsWith(bytes, 0, firstEnd, 'MODULE ')) throw new Error('not a Breakpad symbol file: the first line is not a MODULE record');
    const moduleFields = buffer.toString('utf8', 7, firstEnd).split(' ');
    if (moduleFields.length < 4) throw new Error('the MODULE record has fewer than 4 fields');
    const module = { os: moduleFields[0], arch: moduleFields[1], id: moduleFields[2], name: moduleFields.slice(3).join(' ') };

    const funcs: number[] = []; // address, size, start, end
    const publics: number[] = []; // address, start, end
    const files: number[] = []; // number, start, end
    const origins: number[] = [];
    let maxFile = -1;
    let maxOrigin = -1;
    let openFunc = -1; // index in funcs/4 whose body is being read
    let lineNo = 1;
    let at = firstEnd < n ? lineEnd(bytes, 0) + 1 : n;

    const fail = (what: string): never => {
      throw new Error(`line ${lineNo}: ${what}`);
    };
    /** The first `count` space-separated fields after `from`, and where the rest of the line starts. */
    const fields = (from: number, stop: number, count: number): { values: string[]; rest: number } => {
      const values: string[] = [];
      let p = from;
      while (values.length < count) {
        let q = p;
        while (q < stop && bytes[q] !== 32) q++;
        if (q === p) fail('a record with too few fields');
        values.push(buffer.toString('latin1', p, q));
        p = q < stop ? q + 1 : q;
      }
      return { values, rest: p };
    };
    const hex = (text: string): number => {
      const value = parseInt(text, 16);
      if (!/^[0-9a-fA-F]+$/.test(text) || !Number.isFinite(value)) fail(`"${text}" is not a hexadecimal number`);
      return value;
    };
    const decimal = (text: string, max: number): number => {
      const value = Number(text);
      if (!/^\d+$/.test(text) || value > max) fail(`"${text}" is not a record number`);
      return value;
    };
    const closeFunc = (end: number) => {
      if (openFunc >= 0) funcs[4 * openFunc + 3] = end;
      openFunc = -1;
    };

    while (at < n) {
      lineNo++;
      const end = lineEnd(bytes, at);
      const stop = trimmedEnd(bytes, at, end);
      if (stop > at) {
        const c = bytes[at];
        if (c === 70 /* F */ && startsWith(bytes, at, stop, 'FUNC ')) {
          closeFunc(at);
          let p = at + 5;
          if (startsWith(bytes, p, stop, 'm ')) p += 2;
          const { values } = fields(p, stop, 3);
          openFunc = funcs.length / 4;
          funcs.push(hex(values[0]), hex(values[1]), at, n);
        } else if (c === 70 && startsWith(bytes, at, stop, 'FILE ')) {
          closeFunc(at);
          const { values, rest } = fields(at + 5, stop, 1);
          const num = decimal(values[0], MAX_RECORD_NUMBER);
          files.push(num, rest, stop);
          if (num > maxFile) maxFile = num;
        } else if (c === 73 /* I */ && startsWith(bytes, at, stop, 'INLINE_ORIGIN ')) {
          closeFunc(at);
          const { values, rest } = fields(at + 14, stop, 1);
          const num = decimal(values[0], MAX_RECORD_NUMBER);
          origins.push(num, rest, stop);
          if (num > maxOrigin) maxOrigin = num;
        } else if (c === 73 && startsWith(bytes, at, stop, 'INLINE ')) {
          if (openFunc < 0) fail('an INLINE record outside a FUNC');
        } else if (c === 80 /* P */ && startsWith(bytes, at, stop, 'PUBLIC ')) {
          closeFunc(at);
          let p = at + 7;
          if (startsWith(bytes, p, stop, 'm ')) p += 2;
          const { values } = fields(p, stop, 2);
          publics.push(hex(values[0]), at, stop);
        } else if (
          (c === 83 /* S */ && startsWith(bytes, at, stop, 'STACK ')) ||
          (c === 73 && startsWith(bytes, at, stop, 'INFO ')) ||
          startsWith(bytes, at, stop, 'MODULE ')
        ) {
          closeFunc(at);
        } else if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70)) {
          // A line record: `address size line filenum`, part of the open FUNC.
          if (openFunc < 0) fail('a line record outside a FUNC');
        } else {
          fail(`an unknown record "${buffer.toString('latin1', at, Math.min(stop, at + 20))}"`);
        }
      }
      at = end + 1;
    }
    closeFunc(n);

    const funcCount = funcs.length / 4;
    const funcOrder = Array.from({ length: funcCount }, (_, i) => i).sort((a, b) => funcs[4 * a] - funcs[4 * b]);
    const funcAddress = new Float64Array(funcCount);
    const funcSize = new Float64Array(funcCount);
    const funcStart = new Float64Array(funcCount);
    const funcEnd = new Float64Array(funcCount);
    funcOrder.forEach((from, i) => {
      funcAddress[i] = funcs[4 * from];
      funcSize[i] = funcs[4 * from + 1];
      funcStart[i] = funcs[4 * from + 2];
      funcEnd[i] = funcs[4 * from + 3];
    });
    const publicCount = publics.length / 3;
    const publicOrder = Array.from({ length: publicCount }, (_, i) => i).sort((a, b) => publics[3 * a] - publics[3 * b]);
    const publicAddress = new Float64Array(publicCount);
    const publicStart = new Float64Array(publicCount);
    const publicEnd = new Float64Array(publicCount);
    publicOrder.forEach((from, i) => {
      publicAddress[i] = publics[3 * from];
      publicStart[i] = publics[3 * from + 1];
      publicEnd[i] = publics[3 * from + 2];
    });
    const byNumber = (records: number[], max: number): Float64Array<ArrayBuffer> => {
      const out = new Float64Array(2 * (max + 1)).fill(-1);
      for (let i = 0; i < records.length; i += 3) {
        out[2 * records[i]] = records[i + 1];
        out[2 * records[i] + 1] = records[i + 2];
      }
      return out;
    };
    return {
      module,
      funcAddress,
      funcSize,
      funcStart,
      funcEnd,
      publicAddress,
      publicStart,
      publicEnd,
      files: byNumber(files, maxFile),
      origins: byNumber(origins, maxOrigin),
    };
  }
}
