// JavaScript source maps (ECMA-426, "version 3"): what an upload must be for symbolication to use
// it. A regular map needs `version: 3`, `sources` (strings, or null for an unknown source),
// `mappings` (base64 VLQ: `[A-Za-z0-9+/]` in segments separated by `,` and lines by `;`), and may
// have `names`, `sourcesContent`, `file`, `sourceRoot`; an index map has `sections`, each an
// `offset: {line, column}` (in order) and a `map`, checked the same way. The mappings are decoded
// in full: every segment must have 1, 4 or 5 fields, and refer to sources and names that exist.
//
// The checker is one self-contained function (`sourceMapChecker`): a large upload is checked in a
// worker thread that runs the function's own text (see artifact-content.ts), as the symbolication
// worker does, because a worker cannot load a .ts module under the tests on Node 20.

export type SourceMapCheck = { ok: true; debugId: string | null } | { ok: false; message: string };

export interface SourceMapLimits {
  /** Index maps may nest (the spec forbids it, tools do not agree): a bound keeps a hostile one from recursing deep. */
  nesting: number;
  /**
   * The generated lines a map may describe, and the last column of a section's offset. A decoder
   * keeps an array per generated line, so a section's offset or a run of `;` is memory: a 201-byte
   * index map that put a section at line 20,000,000 took a symbolication worker to 1.3 GB.
   * Bundles have far fewer lines.
   */
  lines: number;
  column: number;
}

export const SOURCE_MAP_LIMITS: SourceMapLimits = { nesting: 8, lines: 1_000_000, column: 100_000_000 };
export const MAX_GENERATED_LINES = SOURCE_MAP_LIMITS.lines;

/** A checker of parsed source maps within `limits`. Uses nothing from outside its own body (see above). */
export function sourceMapChecker(limits: SourceMapLimits): (map: unknown) => SourceMapCheck {
  // uuid.ts's pattern and normalization, restated here so that the function stands alone.
  const UUID = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;
  const normalizeUuid = (id: string): string => {
    const hex = id.replace(/-/g, '').toLowerCase();
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  type Json = Record<string, unknown>;
  class MapProblem extends Error {}
  const MAX_NESTING = limits.nesting;
  const MAX_GENERATED_LINES = limits.lines;
  const MAX_GENERATED_COLUMN = limits.column;

  /** Checks a parsed source map; the debug id is its `debugId` (or `debug_id`), lower case. */
  function checkSourceMap(map: unknown): SourceMapCheck {
    try {
      checkMap(map, '', 0, 0);
      const raw = (map as Json).debugId ?? (map as Json).debug_id;
      if (raw === undefined || raw === null) return { ok: true, debugId: null };
      if (typeof raw !== 'string' || !UUID.test(raw)) throw new MapProblem(`debugId must be a UUID, got ${JSON.stringify(raw)}`);
      return { ok: true, debugId: normalizeUuid(raw) };
    } catch (error) {
      if (error instanceof MapProblem) return { ok: false, message: error.message };
      throw error;
    }
  }

  /** `firstLine`: the generated line (0-based) the map starts at, the sum of its sections' offsets. */
  function checkMap(map: unknown, at: string, depth: number, firstLine: number): void {
    if (typeof map !== 'object' || map === null || Array.isArray(map)) throw new MapProblem(`${at || 'the source map'} must be a JSON object`);
    const m = map as Json;
    if (m.version !== 3) throw new MapProblem(`${at}version must be 3, got ${JSON.stringify(m.version) ?? 'nothing'}`);
    optionalString(m, 'file', at);
    if (m.sections !== undefined) {
      if (m.mappings !== undefined) throw new MapProblem(`${at}an index map (with sections) has no mappings of its own`);
      checkSections(m.sections, at, depth, firstLine);
      return;
    }
    optionalString(m, 'sourceRoot', at);
    const sources = stringList(m.sources, `${at}sources`, true, true);
    const names = m.names === undefined ? 0 : stringList(m.names, `${at}names`, false, true);
    if (m.sourcesContent !== undefined) stringList(m.sourcesContent, `${at}sourcesContent`, true, false);
    if (typeof m.mappings !== 'string') throw new MapProblem(`${at}mappings must be a string, got ${describe(m.mappings)}`);
    checkMappings(m.mappings, sources, names, `${at}mappings`, firstLine);
  }

  function checkSections(sections: unknown, at: string, depth: number, firstLine: number): void {
    if (!Array.isArray(sections)) throw new MapProblem(`${at}sections must be an array, got ${describe(sections)}`);
    if (depth >= MAX_NESTING) throw new MapProblem(`${at}sections are nested more than ${MAX_NESTING} deep`);
    let previous: [number, number] | undefined;
    sections.forEach((section: unknown, i) => {
      const here = `${at}sections[${i}]`;
      if (typeof section !== 'object' || section === null || Array.isArray(section)) throw new MapProblem(`${here} must be an object`);
      const { offset, map, url } = section as Json;
      if (typeof offset !== 'object' || offset === null) throw new MapProblem(`${here}.offset must be an object {line, column}`);
      const { line, column } = offset as Json;
      for (const [key, value] of [
        ['line', line],
        ['column', column],
      ] as const)
        if (!Number.isInteger(value) || (value as number) < 0) throw new MapProblem(`${here}.offset.${key} must be an integer ≥ 0, got ${describe(value)}`);
      if (firstLine + (line as number) >= MAX_GENERATED_LINES)
        throw new MapProblem(`${here}.offset.line puts the section at generated line ${firstLine + (line as number)}: at most ${MAX_GENERATED_LINES - 1}`);
      if ((column as number) > MAX_GENERATED_COLUMN)
        throw new MapProblem(`${here}.offset.column must be at most ${MAX_GENERATED_COLUMN}, got ${describe(column)}`);
      const position: [number, number] = [line as number, column as number];
      if (previous && (position[0] < previous[0] || (position[0] === previous[0] && position[1] <= previous[1])))
        throw new MapProblem(`${here}.offset must come after the previous section's (sections are in order and do not overlap)`);
      previous = position;
      if (map === undefined && url !== undefined) throw new MapProblem(`${here}: sections that point to a url are not supported; embed the map`);
      checkMap(map, `${here}.map.`, depth + 1, firstLine + (line as number));
    });
  }

  function optionalString(m: Json, key: string, at: string): void {
    const value = m[key];
    if (value !== undefined && value !== null && typeof value !== 'string') throw new MapProblem(`${at}${key} must be a string, got ${describe(value)}`);
  }

  /** The list's length; `nulls`: entries may be null (unknown), `required`: it must be there. */
  function stringList(value: unknown, at: string, nulls: boolean, required: boolean): number {
    if (value === undefined && !required) return 0;
    if (!Array.isArray(value)) throw new MapProblem(`${at} must be an array, got ${describe(value)}`);
    value.forEach((entry: unknown, i) => {
      if (typeof entry !== 'string' && !(nulls && entry === null))
        throw new MapProblem(`${at}[${i}] must be a string${nulls ? ' or null' : ''}, got ${describe(entry)}`);
    });
    return value.length;
  }

  const BASE64 = new Int8Array(128).fill(-1);
  for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) BASE64[c.charCodeAt(0)] = i;
  const COMMA = 44;
  const SEMICOLON = 59;

  /**
   * Decodes every segment: fields are base64 VLQ (5 value bits a digit, bit 6 continues), relative
   * to the previous segment's (the generated column restarts each line). Throws on the first problem.
   */
  function checkMappings(mappings: string, sources: number, names: number, at: string, firstLine: number): void {
    const fields = [0, 0, 0, 0, 0];
    let source = 0;
    let name = 0;
    let line = 1;
    let segment = 1;
    let count = 0;
    let value = 0;
    let shift = 0;
    let inValue = false;
    const endSegment = () => {
      if (inValue) throw new MapProblem(`${at}: line ${line}, segment ${segment} ends inside a VLQ value`);
      if (count === 0) return; // an empty segment (`,,` or a line's trailing comma): tolerated, as decoders do
      if (count !== 1 && count !== 4 && count !== 5) throw new MapProblem(`${at}: line ${line}, segment ${segment} has ${count} fields (1, 4 or 5 expected)`);
      if (count >= 4) {
        source += fields[1];
        if (source < 0 || source >= sources)
          throw new MapProblem(`${at}: line ${line}, segment ${segment} refers to source ${source}, and there are ${sources}`);
      }
      if (count === 5) {
        name += fields[4];
        if (name < 0 || name >= names) throw new MapProblem(`${at}: line ${line}, segment ${segment} refers to name ${name}, and there are ${names}`);
      }
      count = 0;
    };
    for (let i = 0; i < mappings.length; i++) {
      const code = mappings.charCodeAt(i);
      if (code === COMMA) {
        endSegment();
        segment++;
        continue;
      }
      if (code === SEMICOLON) {
        endSegment();
        line++;
        if (firstLine + line > MAX_GENERATED_LINES) throw new MapProblem(`${at}: describes more than ${MAX_GENERATED_LINES} generated lines`);
        segment = 1;
        continue;
      }
      const digit = code < 128 ? BASE64[code] : -1;
      if (digit < 0) throw new MapProblem(`${at}: ${JSON.stringify(mappings[i])} at offset ${i} is not a base64 VLQ character ([A-Za-z0-9+/], with , and ;)`);
      if (count === 5) throw new MapProblem(`${at}: line ${line}, segment ${segment} has more than 5 fields`);
      value += (digit & 31) * 2 ** shift;
      shift += 5;
      inValue = (digit & 32) !== 0;
      if (inValue) {
        if (shift > 35) throw new MapProblem(`${at}: line ${line}, segment ${segment} has a VLQ value too large for a source map`);
        continue;
      }
      fields[count++] = value % 2 === 1 ? -Math.floor(value / 2) : value / 2;
      value = 0;
      shift = 0;
    }
    endSegment();
  }

  function describe(value: unknown): string {
    if (value === undefined) return 'nothing';
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    return typeof value === 'number' || typeof value === 'boolean' ? String(value) : `an ${typeof value}`;
  }

  return checkSourceMap;
}

/** Checks a parsed source map; the debug id is its `debugId` (or `debug_id`), lower case. */
export const checkSourceMap = sourceMapChecker(SOURCE_MAP_LIMITS);
