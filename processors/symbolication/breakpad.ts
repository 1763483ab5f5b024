// Native frames: instruction addresses resolved with Breakpad symbol files (`.sym`), found by the
// debug id of the `debug_meta` image (elf, macho, pe) the address falls in.
//
// The records used (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md):
//
//   MODULE Linux x86_64 6EDC6ACDB282125843FD59DA9C81BD830 app
//   FILE 0 /src/main.cc                          file number -> path
//   INLINE_ORIGIN 0 inlined_helper()             origin number -> function name
//   FUNC 1000 60 0 main                          [m] address size param_size name
//   INLINE 0 12 0 0 1010 8                       nest_level call_site_line call_site_file origin (address size)+
//   1000 10 10 0                                 line records: address size line file
//   PUBLIC 2000 0 exported_symbol                [m] address param_size name (no line information)
//
// The worker indexes FUNC and PUBLIC records by address; a FUNC's line and INLINE records are
// parsed on first use. An address in a FUNC gives its line record (binary search) and the INLINE
// records whose ranges hold it, by nest level: the FUNC's own frame is at the call site of the
// level-0 inline, each inlined function at the call site of the next level, the innermost at the
// line record. An address in no FUNC falls back to the PUBLIC record below it (a name only).
import type { DebugImage, StackFrame } from '../../src/records/event.js';
import { breakpadId } from './artifacts.js';
import { debugFileById, type EventJob, type Services } from './context.js';
import type { BreakpadIndex } from './worker.js';

export interface NativeLocation {
  function: string;
  filename?: string;
  lineno?: number;
}

interface LineRecord {
  address: number;
  size: number;
  line: number;
  file: number;
}

interface InlineRecord {
  depth: number;
  callLine: number;
  callFile: number;
  origin: number;
  /** address, size pairs */
  ranges: number[];
}

interface ParsedFunc {
  name: string;
  lines: LineRecord[];
  inlines: InlineRecord[];
}

/** Parsed FUNC bodies kept per symbol file; past this, they are parsed again on use. */
const MAX_PARSED_FUNCS = 4096;
/** Inline nesting followed at most (a malformed file could claim any depth). */
const MAX_INLINE_DEPTH = 64;

export class BreakpadSymbols {
  private readonly buffer: Buffer;
  private readonly parsed = new Map<number, ParsedFunc>();

  constructor(
    readonly index: BreakpadIndex,
    bytes: Uint8Array,
  ) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * What is at a module-relative address, outermost call first (several locations when functions
   * were inlined there), or undefined when no FUNC or PUBLIC record covers it.
   */
  lookup(address: number): NativeLocation[] | undefined {
    const { funcAddress, funcSize } = this.index;
    const fi = lastAtOrBelow(funcAddress, address);
    if (fi >= 0 && address < funcAddress[fi] + Math.max(1, funcSize[fi])) return this.inFunc(fi, address);
    const pi = lastAtOrBelow(this.index.publicAddress, address);
    if (pi < 0) return undefined;
    // A FUNC between the PUBLIC and the address ends the PUBLIC's reach.
    if (fi >= 0 && funcAddress[fi] > this.index.publicAddress[pi]) return undefined;
    return [{ function: this.publicName(pi) }];
  }

  private inFunc(fi: number, address: number): NativeLocation[] {
    const func = this.func(fi);
    const li = lastAtOrBelow(func.lines, address);
    const line = li >= 0 && address < func.lines[li].address + func.lines[li].size ? func.lines[li] : undefined;
    // One record per nest level holds the address (levels may come in any order in the file).
    const inlines: InlineRecord[] = [];
    for (let depth = 0; depth < MAX_INLINE_DEPTH; depth++) {
      const next = func.inlines.find((r) => r.depth === depth && coversAddress(r, address));
      if (next === undefined) break;
      inlines.push(next);
    }
    const out: NativeLocation[] = [];
    const at = (location: NativeLocation, file: number | undefined, lineNo: number | undefined) => {
      const filename = file === undefined ? undefined : this.fileName(file);
      if (filename !== undefined) location.filename = filename;
      if (lineNo !== undefined && lineNo > 0) location.lineno = lineNo;
      return location;
    };
    const names = [func.name, ...inlines.map((r) => this.originName(r.origin) ?? '<inlined>')];
    for (let k = 0; k < names.length; k++) {
      const caller = inlines[k];
      out.push(caller !== undefined ? at({ function: names[k] }, caller.callFile, caller.callLine) : at({ function: names[k] }, line?.file, line?.line));
    }
    return out;
  }

  private func(fi: number): ParsedFunc {
    const known = this.parsed.get(fi);
    if (known !== undefined) return known;
    const text = this.buffer.toString('utf8', this.index.funcStart[fi], this.index.funcEnd[fi]);
    const rows = text.split('\n');
    const header = rows[0].replace(/\r$/, '').split(' ');
    const nameAt = header[1] === 'm' ? 5 : 4;
    const func: ParsedFunc = { name: header.slice(nameAt).join(' ') || '<unknown>', lines: [], inlines: [] };
    for (let r = 1; r < rows.length; r++) {
      const row = rows[r].replace(/\r$/, '');
      if (row === '') continue;
      const f = row.split(' ');
      if (f[0] === 'INLINE') {
        // `INLINE level line file origin (address size)+`; files from before 2021 have no file field
        // (`INLINE level line origin (address size)+`), which the parity of the field count tells.
        const withFile = f.length % 2 === 1;
        const first = withFile ? 5 : 4;
        const ranges: number[] = [];
        for (let k = first; k + 1 < f.length; k += 2) ranges.push(parseInt(f[k], 16), parseInt(f[k + 1], 16));
        func.inlines.push({ depth: Number(f[1]), callLine: Number(f[2]), callFile: withFile ? Number(f[3]) : -1, origin: Number(f[withFile ? 4 : 3]), ranges });
      } else if (f.length >= 4) {
        func.lines.push({ address: parseInt(f[0], 16), size: parseInt(f[1], 16), line: Number(f[2]), file: Number(f[3]) });
      }
    }
    func.lines.sort((a, b) => a.address - b.address);
    if (this.parsed.size >= MAX_PARSED_FUNCS) this.parsed.clear();
    this.parsed.set(fi, func);
    return func;
  }

  private publicName(pi: number): string {
    const fields = this.buffer.toString('utf8', this.index.publicStart[pi], this.index.publicEnd[pi]).split(' ');
    return fields.slice(fields[1] === 'm' ? 4 : 3).join(' ') || '<unknown>';
  }

  private fileName(n: number): string | undefined {
    return this.numbered(this.index.files, n);
  }

  private originName(n: number): string | undefined {
    return this.numbered(this.index.origins, n);
  }

  private numbered(table: Float64Array, n: number): string | undefined {
    if (!Number.isInteger(n) || n < 0 || 2 * n >= table.length || table[2 * n] < 0) return undefined;
    return this.buffer.toString('utf8', table[2 * n], table[2 * n + 1]);
  }
}

function coversAddress(record: InlineRecord, address: number): boolean {
  for (let k = 0; k + 1 < record.ranges.length; k += 2) if (address >= record.ranges[k] && address < record.ranges[k] + record.ranges[k + 1]) return true;
  return false;
}

/** The index of the last element whose address is <= `address`, or -1. */
function lastAtOrBelow(sorted: Float64Array | readonly LineRecord[], address: number): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const value = sorted instanceof Float64Array ? sorted[mid] : sorted[mid].address;
    if (value <= address) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

type NativeImage = Extract<DebugImage, { image_addr: string }>;

interface Loaded {
  image: NativeImage;
  start: bigint;
  end: bigint | undefined;
}

function parseAddress(text: string | undefined): bigint | undefined {
  if (typeof text !== 'string' || !/^(?:0x)?[0-9a-f]+$/i.test(text.trim())) return undefined;
  const t = text.trim();
  return BigInt(t.startsWith('0x') || t.startsWith('0X') ? t : `0x${t}`);
}

/** The event's native images (cheap when there are none). */
export function nativeImages(event: { debug_meta?: { images: readonly DebugImage[] } }): NativeImage[] | undefined {
  let out: NativeImage[] | undefined;
  for (const image of event.debug_meta?.images ?? []) {
    if ((image.type === 'elf' || image.type === 'macho' || image.type === 'pe') && image.debug_id && image.image_addr) (out ??= []).push(image);
  }
  return out;
}

/** The image an address falls in: inside [image_addr, image_addr + image_size); without a size, the closest start below. */
function imageFor(images: readonly Loaded[], address: bigint): Loaded | undefined {
  let best: Loaded | undefined;
  for (const image of images) {
    if (address < image.start) continue;
    if (image.end !== undefined) {
      if (address < image.end) return image;
    } else if (best === undefined || image.start > best.start) best = image;
  }
  return best;
}

function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

export async function symbolicateNative(services: Services, job: EventJob, images: readonly NativeImage[]): Promise<void> {
  const loaded: Loaded[] = [];
  for (const image of images) {
    const start = parseAddress(image.image_addr);
    if (start === undefined) continue;
    loaded.push({ image, start, end: typeof image.image_size === 'number' && image.image_size > 0 ? start + BigInt(image.image_size) : undefined });
  }
  // Frames by image: one symbol file per image.
  const byImage = new Map<Loaded, { index: number; relative: number }[]>();
  const last = job.raw.length - 1;
  job.raw.forEach((frame, i) => {
    const address = parseAddress(frame.instruction_addr);
    if (address === undefined) return;
    const image = imageFor(loaded, address);
    if (image === undefined) return;
    // A caller's address is the return address, one past the call: look up the call itself.
    // The crashing frame (the last) is the faulting instruction.
    let relative = address - image.start;
    if (i !== last && relative > 0n) relative -= 1n;
    if (relative > BigInt(Number.MAX_SAFE_INTEGER)) return;
    const list = byImage.get(image);
    if (list) list.push({ index: i, relative: Number(relative) });
    else byImage.set(image, [{ index: i, relative: Number(relative) }]);
  });
  await Promise.all(
    [...byImage.entries()].map(async ([image, frames]) => {
      const symbols = await loadSymbols(services, job, image.image, frames[0].index);
      if (symbols === undefined) {
        services.countFrames('native', 'unresolved', frames.length);
        return;
      }
      const module = image.image.code_file ? basename(image.image.code_file) : undefined;
      let done = 0;
      for (const { index, relative } of frames) {
        const locations = symbols.lookup(relative);
        const frame = job.raw[index];
        if (locations === undefined) {
          job.errors.add(
            'frame_out_of_range',
            index,
            image.image.debug_id,
            `${frame.instruction_addr} (offset 0x${relative.toString(16)} in ${module ?? image.image.debug_id}) is in no FUNC or PUBLIC record of its symbol file`,
          );
          continue;
        }
        job.replaced[index] = locations.map((location) => {
          const out: StackFrame = { ...frame, function: location.function };
          if (module !== undefined) out.module = module;
          if (location.filename !== undefined) out.filename = location.filename;
          else delete out.filename;
          if (location.lineno !== undefined) out.lineno = location.lineno;
          else delete out.lineno;
          return out;
        });
        done++;
      }
      services.countFrames('native', 'symbolicated', done);
      services.countFrames('native', 'unresolved', frames.length - done);
    }),
  );
}

function loadSymbols(services: Services, job: EventJob, image: NativeImage, at: number): Promise<BreakpadSymbols | undefined> {
  const id = breakpadId(image.debug_id);
  return debugFileById(services, job, {
    kind: 'breakpad',
    id,
    label: 'the Breakpad symbol file',
    subject: image.code_file ? `${basename(image.code_file)} (${id})` : id,
    at,
    missing: 'missing_debug_file',
    malformed: 'malformed_debug_file',
    // The file, the index, and up to MAX_PARSED_FUNCS parsed functions.
    finish: (index, bytes) => ({
      value: new BreakpadSymbols(index, bytes),
      bytes: bytes.byteLength + 48 * index.funcAddress.length + 24 * index.publicAddress.length + MAX_PARSED_FUNCS * 1024,
    }),
  });
}
