// Java and Kotlin frames obfuscated by ProGuard or R8: classes, methods, line numbers and inlined
// calls back to the source, from the mapping file named by the event's `debug_meta` image
// `{type: "proguard", uuid}`.
//
// The format (one class line, then its members, indented):
//
//   com.example.Main -> a.a:
//   # {"id":"sourceFile","fileName":"Main.kt"}            R8 metadata: the class's source file
//       int count -> a                                     a field (not used)
//       1:1:void main(java.lang.String[]):101:101 -> a     startline:endline:type name(args):origStart:origEnd -> obf
//       2:2:void foo.Baz.inlinee():42:42 -> a              an inlined call: the innermost method first,
//       2:2:void main(java.lang.String[]):102 -> a         then its callers, all with the same range
//
// A frame `a.a.a` at line 2 is found by binary search over the class index (built by the worker,
// sorted by obfuscated name), its members are parsed on first use, and the members named `a`
// whose range holds line 2 (the first such entry and the ones right after it with the same
// range) become frames, outermost first: `Main.main` line 102, then `foo.Baz.inlinee` line 42.
// R8's frame-rewriting rules and outlines are not applied.
import type { StackFrame } from '../../src/records/event.js';
import { normalizeUuid } from './artifacts.js';
import { debugFileById, EXCEPTION_TYPE, type EventJob, type Services } from './context.js';
import type { ProguardIndex } from './worker.js';

/** One member line of a class. */
export interface MemberMapping {
  /** The obfuscated line range (undefined when the line has none). */
  start?: number;
  end?: number;
  /** The method's original name; `className` is set when it belongs to another class (inlined from there). */
  name: string;
  className?: string;
  /** The original line range (`origEnd` undefined: every obfuscated line maps to `origStart`). */
  origStart?: number;
  origEnd?: number;
  obfuscated: string;
}

const MEMBER = /^\s+(?:(\d+):(\d+):)?(\S+)\s+([^\s(]+)\(([^)]*)\)(?::(\d+)(?::(\d+))?)?\s+->\s+(\S+)\s*$/;
/** Parsed classes kept per mapping; past this, they are parsed again on use. */
const MAX_PARSED_CLASSES = 4096;

export class ProguardMapping {
  private readonly buffer: Buffer;
  private readonly parsed = new Map<number, Map<string, MemberMapping[]>>();

  constructor(
    private readonly index: ProguardIndex,
    bytes: Uint8Array,
  ) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get classCount(): number {
    return this.index.classes;
  }

  /** The original name of an obfuscated class, or undefined if the mapping does not know it. */
  originalClass(obfuscated: string): string | undefined {
    const i = this.find(this.index.obfuscated, obfuscated, null);
    return i < 0 ? undefined : this.text(this.index.original, i);
  }

  /**
   * The frames an obfuscated frame stands for, outermost first (several when calls were
   * inlined), or undefined when the mapping does not know its class.
   */
  remapFrame(frame: StackFrame): StackFrame[] | undefined {
    if (frame.module === undefined) return undefined;
    const ci = this.find(this.index.obfuscated, frame.module, null);
    if (ci < 0) return undefined;
    const original = this.text(this.index.original, ci);
    const hostFile = this.sourceFileOf(ci);
    const members = frame.function === undefined ? undefined : this.members(ci).get(frame.function);
    const line = frame.lineno;
    const chain = members === undefined ? undefined : pickChain(members, line);
    if (chain === undefined) {
      // The class is known, the method is not (or is ambiguous): the class alone is remapped.
      return [{ ...frame, module: original, filename: this.fileFor(original, hostFile) }];
    }
    return chain
      .map((entry) => {
        const module = entry.className ?? original;
        const out: StackFrame = { ...frame, module, function: entry.name, filename: this.fileFor(module, hostFile) };
        const mapped = mapLine(entry, line);
        if (mapped !== undefined && mapped > 0) out.lineno = mapped;
        else delete out.lineno;
        return out;
      })
      .reverse();
  }

  /** A class's members by obfuscated name, in file order (parsed on first use). */
  members(ci: number): Map<string, MemberMapping[]> {
    let byName = this.parsed.get(ci);
    if (byName !== undefined) return byName;
    byName = new Map();
    const text = this.buffer.toString('utf8', this.index.members[2 * ci], this.index.members[2 * ci + 1]);
    for (const line of text.split('\n')) {
      const m = MEMBER.exec(line);
      if (m === null) continue; // fields, comments, metadata
      const entry: MemberMapping = { name: m[4], obfuscated: m[8] };
      if (m[1] !== undefined) {
        entry.start = Number(m[1]);
        entry.end = Number(m[2]);
      }
      const dot = entry.name.lastIndexOf('.');
      if (dot > 0) {
        entry.className = entry.name.slice(0, dot);
        entry.name = entry.name.slice(dot + 1);
      }
      if (m[6] !== undefined) entry.origStart = Number(m[6]);
      if (m[7] !== undefined) entry.origEnd = Number(m[7]);
      const list = byName.get(entry.obfuscated);
      if (list) list.push(entry);
      else byName.set(entry.obfuscated, [entry]);
    }
    if (this.parsed.size >= MAX_PARSED_CLASSES) this.parsed.clear();
    this.parsed.set(ci, byName);
    return byName;
  }

  /** R8's `sourceFile` for a class index, or undefined. */
  private sourceFileOf(ci: number): string | undefined {
    const start = this.index.sourceFile[2 * ci];
    if (start < 0) return undefined;
    try {
      const meta = JSON.parse(this.buffer.toString('utf8', start + 1, this.index.sourceFile[2 * ci + 1]).trim()) as { fileName?: unknown };
      return typeof meta.fileName === 'string' ? meta.fileName : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The source file of an original class: its R8 `sourceFile` when the mapping has one, else the
   * outermost class's simple name with the extension of the frame's class's source file (`.java`
   * without one), as R8's retrace does: `foo.Baz$Inner` in a `Main.kt` class -> `Baz.kt`.
   */
  private fileFor(className: string, hostFile: string | undefined): string {
    const ci = this.find(this.index.original, className, this.index.byOriginal);
    const own = ci < 0 ? undefined : this.sourceFileOf(ci);
    if (own !== undefined) return own;
    const simple = className.slice(className.lastIndexOf('.') + 1).split('$')[0];
    const dot = hostFile?.lastIndexOf('.') ?? -1;
    return `${simple}${hostFile !== undefined && dot > 0 ? hostFile.slice(dot) : '.java'}`;
  }

  private text(ranges: Float64Array, i: number): string {
    return this.buffer.toString('utf8', ranges[2 * i], ranges[2 * i + 1]);
  }

  /** Binary search over name ranges (in `order`, or in index order when null); the class index or -1. */
  private find(ranges: Float64Array, name: string, order: Int32Array | null): number {
    const target = Buffer.from(name, 'utf8');
    let low = 0;
    let high = this.index.classes - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const ci = order === null ? mid : order[mid];
      const cmp = this.buffer.compare(target, 0, target.length, ranges[2 * ci], ranges[2 * ci + 1]);
      if (cmp === 0) return ci;
      if (cmp < 0) low = mid + 1;
      else high = mid - 1;
    }
    return -1;
  }
}

/**
 * The entries for an obfuscated line: the first whose range holds it and the ones right after it
 * with the same range (its inline callers). Without a match (or a line), the entries without a
 * range if they all name one method.
 */
export function pickChain(members: readonly MemberMapping[], line: number | undefined): MemberMapping[] | undefined {
  if (line !== undefined) {
    const first = members.findIndex((e) => e.start !== undefined && e.start <= line && line <= (e.end as number));
    if (first >= 0) {
      const chain = [members[first]];
      for (let k = first + 1; k < members.length && members[k].start === members[first].start && members[k].end === members[first].end; k++)
        chain.push(members[k]);
      return chain;
    }
  }
  const candidates = line === undefined ? members : members.filter((e) => e.start === undefined);
  if (candidates.length === 0) return undefined;
  const name = `${candidates[0].className ?? ''}.${candidates[0].name}`;
  return candidates.every((e) => `${e.className ?? ''}.${e.name}` === name) ? [candidates[0]] : undefined;
}

/** The original line of an obfuscated one under an entry (undefined: unknown). */
export function mapLine(entry: MemberMapping, line: number | undefined): number | undefined {
  // No original range: the lines were kept as they are.
  if (entry.origStart === undefined) return line;
  if (entry.origEnd === undefined || line === undefined || entry.start === undefined) return entry.origStart;
  const mapped = entry.origStart + (line - entry.start);
  return mapped <= entry.origEnd ? mapped : entry.origStart;
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

const JVM_PLATFORMS = new Set(['java', 'kotlin', 'android', 'scala', 'groovy', 'clojure', 'jvm']);

/** The ProGuard mapping UUIDs an event names (cheap when it names none). */
export function proguardUuids(event: { debug_meta?: { images: readonly { type: string }[] } }): string[] | undefined {
  const images = event.debug_meta?.images;
  if (images === undefined) return undefined;
  let out: string[] | undefined;
  for (const image of images) if (image.type === 'proguard' && 'uuid' in image && typeof image.uuid === 'string') (out ??= []).push(normalizeUuid(image.uuid));
  return out;
}

/** A frame a ProGuard mapping could remap: a class and a method, and not JavaScript or native. */
export function isJvmFrame(frame: StackFrame, eventPlatform: string | undefined): boolean {
  if (frame.module === undefined || frame.function === undefined || frame.instruction_addr !== undefined) return false;
  if (frame.platform !== undefined) return JVM_PLATFORMS.has(frame.platform);
  return eventPlatform === undefined || JVM_PLATFORMS.has(eventPlatform);
}

export async function symbolicateJava(services: Services, job: EventJob, uuids: readonly string[]): Promise<void> {
  const frames: number[] = [];
  job.raw.forEach((frame, i) => {
    if (isJvmFrame(frame, job.event.platform)) frames.push(i);
  });
  const mappings: ProguardMapping[] = [];
  for (const uuid of uuids) {
    const mapping = await loadMapping(services, job, uuid, frames[0] ?? EXCEPTION_TYPE);
    if (mapping !== undefined) mappings.push(mapping);
  }
  if (mappings.length === 0) {
    services.countFrames('java', 'unresolved', frames.length);
    return;
  }
  let done = 0;
  for (const i of frames) {
    for (const mapping of mappings) {
      const remapped = mapping.remapFrame(job.raw[i]);
      if (remapped !== undefined) {
        job.replaced[i] = remapped;
        done++;
        break;
      }
    }
  }
  services.countFrames('java', 'symbolicated', done);
  services.countFrames('java', 'unresolved', frames.length - done);

  const exception = job.exception;
  const obfuscated = exception.module ? `${exception.module}.${exception.type}` : exception.type;
  for (const mapping of mappings) {
    const original = mapping.originalClass(obfuscated);
    if (original === undefined) continue;
    if (exception.module) {
      const dot = original.lastIndexOf('.');
      exception.module = dot > 0 ? original.slice(0, dot) : '';
      exception.type = original.slice(dot + 1);
    } else exception.type = original;
    break;
  }
}

function loadMapping(services: Services, job: EventJob, uuid: string, at: number): Promise<ProguardMapping | undefined> {
  return debugFileById(services, job, {
    kind: 'proguard',
    id: uuid,
    label: 'the ProGuard mapping',
    subject: `UUID ${uuid}`,
    at,
    missing: 'missing_proguard_mapping',
    malformed: 'malformed_proguard_mapping',
    // The file, the index, and up to MAX_PARSED_CLASSES parsed classes.
    finish: (index, bytes) => ({ value: new ProguardMapping(index, bytes), bytes: 2 * bytes.byteLength + 64 * index.classes + MAX_PARSED_CLASSES * 512 }),
  });
}
