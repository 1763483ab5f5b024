// The map cache: parsed artifacts (source maps, ProGuard mappings, Breakpad symbols, minified
// sources) by content, bounded in bytes. One parse serves every event of a release: the key is
// the file's sha256, so the same bytes uploaded to several releases are parsed once too.
// Concurrent requests for an entry that is being built share that one build. A file that fails
// to parse is remembered as failed for `failed_ttl_ms`, so a broken map costs one parse per
// period instead of one per event.
import { LRUCache } from 'lru-cache';

/** A build's outcome. `transient`: the file could not be read (not remembered; the next event tries again). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string; transient?: boolean };

/** Thrown by a loader: `cacheable` failures (the file is bad) are remembered, others (it could not be read) are not. */
export class LoadError extends Error {
  constructor(
    message: string,
    readonly cacheable: boolean,
  ) {
    super(message);
  }
}

/** What a loader builds: the value and the bytes of memory it holds (what the cache is bounded by). */
export interface Loaded<T> {
  value: T;
  bytes: number;
}

type Entry = { ok: true; value: unknown; bytes: number } | { ok: false; message: string };

/** What a failed entry is charged: it holds a message only. */
const FAILED_ENTRY_BYTES = 512;

export interface CacheStats {
  hits: number;
  misses: number;
  /** Builds that joined one already running. */
  shared: number;
  failures: number;
}

export class ArtifactCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly building = new Map<string, Promise<Parsed<unknown>>>();
  readonly stats: CacheStats = { hits: 0, misses: 0, shared: 0, failures: 0 };

  constructor(
    readonly maxBytes: number,
    private readonly failedTtlMs: number,
  ) {
    this.lru = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (entry) => (entry.ok ? Math.max(1, entry.bytes) : FAILED_ENTRY_BYTES),
    });
  }

  /** Bytes the cached entries are charged. */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  get size(): number {
    return this.lru.size;
  }

  /**
   * The entry for `key` (`<kind>:<sha256>`), built by `load` on a miss. Never throws: a failed
   * build is `{ok: false}`.
   */
  get<T>(key: string, load: () => Promise<Loaded<T>>): Promise<Parsed<T>> {
    const entry = this.lru.get(key);
    if (entry !== undefined) {
      this.stats.hits++;
      return Promise.resolve(entry.ok ? { ok: true, value: entry.value as T } : { ok: false, message: entry.message });
    }
    const running = this.building.get(key);
    if (running !== undefined) {
      this.stats.shared++;
      return running as Promise<Parsed<T>>;
    }
    this.stats.misses++;
    const build = this.build(key, load);
    this.building.set(key, build);
    return build;
  }

  /** Forgets everything (tests, shutdown). */
  clear(): void {
    this.lru.clear();
  }

  private async build<T>(key: string, load: () => Promise<Loaded<T>>): Promise<Parsed<T>> {
    try {
      const loaded = await load();
      // An entry larger than the whole cache is not kept (lru-cache refuses it): it is rebuilt on
      // every use, which is slow but bounded.
      this.lru.set(key, { ok: true, value: loaded.value, bytes: loaded.bytes });
      return { ok: true, value: loaded.value };
    } catch (error) {
      this.stats.failures++;
      const message = error instanceof Error ? error.message : String(error);
      const transient = error instanceof LoadError && !error.cacheable;
      if (!transient && this.failedTtlMs > 0) this.lru.set(key, { ok: false, message }, { ttl: this.failedTtlMs });
      return transient ? { ok: false, message, transient } : { ok: false, message };
    } finally {
      this.building.delete(key);
    }
  }
}
