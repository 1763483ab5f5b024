// What the per-platform modules share while one event is symbolicated: the services (lookup,
// cache, workers), the event's frames and their replacements, and its processing errors.
import type { ArtifactFile, ArtifactScope } from '../../src/records/artifact.js';
import type { ErrorEvent, ExceptionInfo, ProcessingError, StackFrame } from '../../src/records/event.js';
import type { ArtifactFinder } from './artifacts.js';
import { LoadError, type ArtifactCache, type Loaded, type Parsed } from './cache.js';
import type { SymbolicationConfig } from './config.js';
import type { JobResults, WorkerPool } from './pool.js';
import type { JobKind } from './worker.js';

export type Platform = 'javascript' | 'java' | 'native';

/** Why a frame (or the exception type) stayed as received. */
export type ProcessingErrorType =
  | 'missing_source_map'
  | 'malformed_source_map'
  | 'frame_out_of_range'
  | 'missing_proguard_mapping'
  | 'malformed_proguard_mapping'
  | 'missing_debug_file'
  | 'malformed_debug_file'
  | 'time_budget_exceeded';

export interface Services {
  finder: ArtifactFinder;
  cache: ArtifactCache;
  pool: WorkerPool;
  config: SymbolicationConfig;
  /** Counts frames per platform: symbolicated (changed) or left as received. */
  countFrames(platform: Platform, result: 'symbolicated' | 'unresolved', n: number): void;
  /** Times a parse (kind, seconds, ok). */
  observeParse(kind: JobKind | 'minified_source', seconds: number, ok: boolean): void;
}

/** One exception of an event being symbolicated (the raised one, or a cause in its chain). */
export interface EventJob {
  event: ErrorEvent;
  /** The exception whose frames these are: `event.exception` or one of its causes. */
  exception: ExceptionInfo;
  scope: ArtifactScope;
  /** The frames as received (never changed). */
  raw: readonly StackFrame[];
  /** Per raw frame: what replaces it (one frame, or several for inlined calls); undefined: unchanged. */
  replaced: (StackFrame[] | undefined)[];
  errors: ProcessingErrors;
}

/** `exception.type`: the one place outside frames a processing error can point at. */
export const EXCEPTION_TYPE = -1;

interface Collected {
  type: ProcessingErrorType;
  /** A raw frame index, or EXCEPTION_TYPE. */
  at: number;
  message: string;
  count: number;
}

/**
 * An event's processing errors, one per cause: the same type for the same file (or debug id) is
 * reported once, at the first frame it affected, with the number of frames.
 */
export class ProcessingErrors {
  private readonly collected = new Map<string, Collected>();

  /** `path`: where the exception is in the event (`exception`, `exception.cause`, …). */
  constructor(private readonly path = 'exception') {}

  add(type: ProcessingErrorType, at: number, subject: string, message: string): void {
    const key = `${type}\0${subject}`;
    const known = this.collected.get(key);
    if (known !== undefined) known.count++;
    else this.collected.set(key, { type, at, message, count: 1 });
  }

  get size(): number {
    return this.collected.size;
  }

  /** The errors, with paths into the symbolicated frames (`outputIndex[i]`: where raw frame i ended up). */
  list(outputIndex: readonly number[]): ProcessingError[] {
    return [...this.collected.values()].map((e) => ({
      type: e.type,
      path: e.at === EXCEPTION_TYPE ? `${this.path}.type` : `${this.path}.stacktrace[${outputIndex[e.at]}]`,
      message: e.count > 1 ? `${e.message} (${e.count} frames)` : e.message,
    }));
  }
}

/**
 * An artifact parsed by a worker and finished by `finish` on the main thread, through the cache:
 * read once, parsed once, shared by every event that needs it. A read failure is transient; a
 * parse failure is remembered for failed_ttl_ms.
 */
export function parsedArtifact<K extends JobKind, T>(
  services: Services,
  kind: K,
  file: Pick<ArtifactFile, 'sha256' | 'name'>,
  read: () => Promise<Uint8Array>,
  finish: (result: JobResults[K], bytes: Uint8Array) => Loaded<T> | Promise<Loaded<T>>,
): Promise<Parsed<T>> {
  return services.cache.get(`${kind}:${file.sha256}`, async () => {
    let bytes: Uint8Array;
    try {
      bytes = await read();
    } catch (error) {
      throw new LoadError(`could not be read: ${(error as Error).message}`, false);
    }
    const started = performance.now();
    try {
      const result = await services.pool.run(kind, bytes);
      const loaded = await finish(result, bytes);
      services.observeParse(kind, (performance.now() - started) / 1000, true);
      return loaded;
    } catch (error) {
      services.observeParse(kind, (performance.now() - started) / 1000, false);
      throw new LoadError((error as Error).message, true);
    }
  });
}

/** How a debug file found by debug id is described and reported. */
export interface DebugFileRequest<K extends JobKind, T> {
  kind: K;
  id: string;
  /** What the file is, for messages: `the ProGuard mapping`, `the symbol file`. */
  label: string;
  /** What it belongs to, for messages: the UUID, or `libapp.so (<id>)`. */
  subject: string;
  /** The raw frame index errors point at. */
  at: number;
  missing: ProcessingErrorType;
  malformed: ProcessingErrorType;
  finish: (result: JobResults[K], bytes: Uint8Array) => Loaded<T>;
}

/**
 * A ProGuard mapping or a Breakpad symbol file by debug id, parsed through the cache; undefined
 * (with a processing error on the event) when it is missing, unreadable or malformed.
 */
export async function debugFileById<K extends JobKind, T>(services: Services, job: EventJob, request: DebugFileRequest<K, T>): Promise<T | undefined> {
  const { id, at, label, subject } = request;
  const type = request.kind === 'proguard' ? 'proguard' : 'breakpad';
  let file: ArtifactFile | undefined;
  try {
    file = (await services.finder.byDebugId(job.scope, id, [type]))[0];
  } catch (error) {
    job.errors.add(request.missing, at, id, `the lookup of ${label} of ${subject} failed: ${(error as Error).message}`);
    return undefined;
  }
  if (file === undefined) {
    job.errors.add(request.missing, at, id, `no ${label.replace(/^the /, '')} for ${subject}`);
    return undefined;
  }
  const found = file;
  const parsed = await parsedArtifact(services, request.kind, found, () => services.finder.read(found), request.finish);
  if (parsed.ok) return parsed.value;
  if (parsed.transient) job.errors.add(request.missing, at, id, `${label} ${found.name} of ${subject} ${parsed.message}`);
  else job.errors.add(request.malformed, at, id, `${label} ${found.name} of ${subject} could not be parsed: ${parsed.message}`);
  return undefined;
}
