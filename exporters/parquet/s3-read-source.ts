// A read-only node's view of a lake on S3: DuckDB reads local files, so the node keeps a bounded
// cache of the bucket's Parquet objects under its lake `path` (files are immutable once
// published: a cached copy never goes stale, it only goes away with its object). It lists the
// bucket every `refresh_ms` (and before a read when the listing is older than that), downloads new
// objects ahead of reads while they fit, and evicts the least recently read past `cache_max_bytes`.
// A read that names a file not cached fails to open it; the merge of sources (read-sources.ts)
// then asks fetchMissing() to download what the read named, and runs the read again. An object
// that vanished (compacted or expired) is read as gone: the listing is refreshed and the read
// retried over the new files, which hold the same rows.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Logger } from 'pino';
import type { Signal } from '../../src/engine/item.js';
import type { DateSelection, ReadSource, Row } from '../../src/engine/read-source.js';
import type { LakeSignal } from './lake.js';
import { asLakeSignal, lakeRelation } from './read-source.js';
import type { LakeStore } from './lake-store.js';
import type { LakeTables } from './migrations.js';
import type { S3SegmentBlobs } from './s3-segments.js';

/** Downloads at a time. */
const PARALLEL = 4;

export class S3LakeCache {
  /** signal/project -> date -> object keys, from the last listing. */
  private index = new Map<string, Map<string, string[]>>();
  private sizes = new Map<string, number>();
  private listedAt = 0;
  private listing?: Promise<void>;
  /** Cached keys, least recently read first (a Map keeps insertion order: a read re-inserts). */
  private readonly cached = new Map<string, number>();
  private cachedBytes = 0;
  private readonly missing = new Set<string>();
  private readonly fetching = new Map<string, Promise<boolean>>();
  /** Listed objects DuckDB could not open as Parquet, by key, with the size they had: left out until the listing shows another. */
  private readonly unreadableKeys = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly store: LakeStore,
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly refreshMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts on an empty cache (whatever a previous run left is removed) and lists the bucket. */
  async start(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    await this.refresh(false);
    this.timer = setInterval(() => {
      this.refresh(true).catch((error: unknown) => this.logger.warn({ err: String(error), lake: this.store.description }, 'cannot list the lake bucket'));
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  get bytes(): number {
    return this.cachedBytes;
  }

  /** Lists again when the last listing is older than refresh_ms. */
  async fresh(): Promise<void> {
    if (Date.now() - this.listedAt >= this.refreshMs) await this.refresh(false);
  }

  dates(signal: LakeSignal, projectId: string): string[] {
    return [...(this.index.get(`${signal}/${projectId}`)?.keys() ?? [])].sort().reverse();
  }

  /** Local paths of the listed files of these partitions; the ones not cached are noted for fetchMissing(). */
  files(signal: LakeSignal, projectId: string, dates: string[] | undefined): string[] {
    const byDate = this.index.get(`${signal}/${projectId}`);
    if (!byDate) return [];
    const keys = (dates ?? [...byDate.keys()]).flatMap((date) => byDate.get(date) ?? []).filter((key) => !this.isUnreadable(key));
    for (const key of keys) {
      const size = this.cached.get(key);
      if (size === undefined) this.missing.add(key);
      else {
        this.cached.delete(key);
        this.cached.set(key, size);
      }
    }
    return keys.map((key) => join(this.dir, key));
  }

  /**
   * A cached file a read could not open as Parquet. The download is whole (renamed into place), so
   * the object itself is cut short or not Parquet at all (a writer killed mid-upload on a store that
   * keeps partial objects): it is left out of reads, with an error in the log, until the listing
   * shows it with another size. False for a path outside the cache.
   */
  unreadable(path: string): boolean {
    const key = relative(this.dir, path);
    if (key.startsWith('..') || isAbsolute(key) || !this.sizes.has(key)) return false;
    this.unreadableKeys.set(key, this.sizes.get(key) ?? -1);
    const size = this.cached.get(key);
    if (size !== undefined) this.drop(key, size);
    this.logger.error({ key }, 'a lake object is not a readable Parquet file; reads leave it out until it changes');
    return true;
  }

  private isUnreadable(key: string): boolean {
    const size = this.unreadableKeys.get(key);
    return size !== undefined && size === this.sizes.get(key);
  }

  /** Downloads the files reads named and did not find; true when the read should run again. */
  async fetchMissing(): Promise<boolean> {
    const keys = [...this.missing];
    this.missing.clear();
    if (keys.length === 0) return false;
    let gone = false;
    await inParallel(keys, async (key) => {
      if (!(await this.fetch(key))) gone = true;
    });
    // An object compacted or expired since the listing: list again, the read then names its successor.
    if (gone) await this.refresh(false);
    this.evict(new Set(keys));
    return true;
  }

  /**
   * An object read whole through the cache (a replay segment's blob: immutable, its key names its
   * digest); undefined when it is gone from the bucket. It counts towards max_bytes like a file.
   */
  async object(key: string): Promise<Buffer | undefined> {
    if (!(await this.fetch(key))) return undefined;
    const size = this.cached.get(key);
    if (size !== undefined) {
      this.cached.delete(key);
      this.cached.set(key, size);
    }
    this.evict(new Set([key]));
    try {
      return await readFile(join(this.dir, key));
    } catch (error) {
      // Evicted meanwhile for a read that needed the room: read it from the bucket instead.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.store.get(key);
      throw error;
    }
  }

  /** One download per key at a time: a read and the prefetch may want the same file. */
  private fetch(key: string): Promise<boolean> {
    let running = this.fetching.get(key);
    if (!running) {
      running = this.download(key).finally(() => this.fetching.delete(key));
      this.fetching.set(key, running);
    }
    return running;
  }

  private async download(key: string): Promise<boolean> {
    if (this.cached.has(key)) return true;
    const to = join(this.dir, key);
    mkdirSync(dirname(to), { recursive: true });
    if (!(await this.store.download(key, to))) return false;
    // Listed files have their size from the listing; other objects (segment blobs) are measured.
    const size = this.sizes.get(key) ?? statSync(to).size;
    this.cached.set(key, size);
    this.cachedBytes += size;
    return true;
  }

  /** Drops the least recently read files past max_bytes, never those in `keep` (the read in hand needs them). */
  private evict(keep: Set<string> = new Set()): void {
    for (const [key, size] of this.cached) {
      if (this.cachedBytes <= this.maxBytes) break;
      if (keep.has(key)) continue;
      this.drop(key, size);
    }
  }

  private drop(key: string, size: number): void {
    this.cached.delete(key);
    this.cachedBytes -= size;
    rmSync(join(this.dir, key), { force: true });
  }

  private refresh(prefetch: boolean): Promise<void> {
    this.listing ??= this.list(prefetch).finally(() => (this.listing = undefined));
    return this.listing;
  }

  private async list(prefetch: boolean): Promise<void> {
    const started = Date.now();
    const objects = (await this.store.list('')).filter((o) => o.key.endsWith('.parquet'));
    const index = new Map<string, Map<string, string[]>>();
    const sizes = new Map<string, number>();
    for (const { key, size } of objects) {
      const match = /^(events|traces|replays)\/project_id=([^/]+)\/date=(\d{4}-\d{2}-\d{2})\/[^/]+$/.exec(key);
      if (!match) continue;
      sizes.set(key, size);
      const partition = `${match[1]}/${match[2]}`;
      const byDate = index.get(partition) ?? new Map<string, string[]>();
      index.set(partition, byDate);
      byDate.set(match[3], [...(byDate.get(match[3]) ?? []), key]);
    }
    const added = [...sizes.keys()].filter((key) => !this.sizes.has(key));
    const removed = [...this.sizes.keys()].filter((key) => !sizes.has(key));
    this.index = index;
    this.sizes = sizes;
    this.listedAt = started;
    for (const key of removed) {
      const size = this.cached.get(key);
      if (size !== undefined) this.drop(key, size);
    }
    // An unreadable object written again (or gone) is tried afresh.
    for (const [key, size] of this.unreadableKeys) if (sizes.get(key) !== size) this.unreadableKeys.delete(key);
    // Newly published files are what the next reads want: fetch them ahead while they fit.
    if (prefetch) {
      const fits: string[] = [];
      let room = this.maxBytes - this.cachedBytes;
      for (const key of added) {
        const size = sizes.get(key) ?? 0;
        if (size > room) break;
        room -= size;
        fits.push(key);
      }
      await inParallel(fits, (key) => this.fetch(key).then(() => undefined));
    }
  }
}

export class S3LakeReadSource implements ReadSource {
  readonly signals: readonly Signal[] = ['events', 'traces', 'replays'];
  readonly repeats = true;

  constructor(
    readonly id: string,
    private readonly cache: S3LakeCache,
    private readonly tables: LakeTables,
    private readonly blobs: S3SegmentBlobs,
  ) {}

  relation(signal: Signal, projectIds: string[], selection: DateSelection): string {
    const lakeSignal = asLakeSignal(signal);
    const dates = selection.kind === 'all' ? undefined : selection.dates;
    // A read-only node stages nothing: its empty staging table gives the relation its columns when no file is listed.
    return lakeRelation(
      this.tables,
      lakeSignal,
      projectIds.flatMap((project) => this.cache.files(lakeSignal, project, dates)),
    );
  }

  dates(signal: Signal, projectId: string): string[] {
    return this.cache.dates(asLakeSignal(signal), projectId);
  }

  settled(): Promise<void> {
    return this.cache.fresh();
  }

  fetchMissing(): Promise<boolean> {
    return this.cache.fetchMissing();
  }

  unreadable(path: string): boolean {
    return this.cache.unreadable(path);
  }

  /** A segment's events: its blob in the bucket, through the cache. */
  segment(row: Row): Promise<Buffer | undefined> {
    return this.blobs.gzipped(row);
  }
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}
