// Where the lake's files live besides the writer's own directory: an object store (s3-store.ts)
// every node reads. A writer still writes each file into its lake directory first (COPY writes
// local files) and publishes it to the store before the flush is journaled done; its recovery and
// compaction work on its own files as before and mirror every publish and removal to the store.
// Keys are the files' paths relative to the lake directory, under the store's prefix, so the
// store holds the same hive layout: <signal>/project_id=<id>/date=<day>/part-….parquet.
import { relative, sep } from 'node:path';

export interface LakeObject {
  /** Relative to the lake: `events/project_id=p1/date=2026-11-22/part-w1-3-0.parquet`. */
  key: string;
  size: number;
}

export interface LakeStore {
  /** Where it is, for logs. */
  readonly description: string;
  /** Stores a local file under the key; replaces what is there. The object appears whole or not at all. */
  put(key: string, file: string): Promise<void>;
  /** Stores bytes under the key, whole or not at all. */
  putBytes(key: string, body: Buffer): Promise<void>;
  /** Every object whose key starts with the prefix. */
  list(prefix: string): Promise<LakeObject[]>;
  /** The object's bytes; undefined when it is gone. */
  get(key: string): Promise<Buffer | undefined>;
  /** Writes the object to `to` (whole: a partial download never has that name); false when it is gone. */
  download(key: string, to: string): Promise<boolean>;
  /** Deletes the objects (those already gone are no error). */
  delete(keys: string[]): Promise<void>;
}

/** A writer's lake directory published to a store. */
export class RemoteLake {
  /** Deletions waiting out the grace period (their timers). */
  private readonly later = new Map<NodeJS.Timeout, string[]>();

  constructor(
    readonly store: LakeStore,
    private readonly root: string,
    /** How long a replaced object (a compaction's input) stays, so that readers that listed it can still read it. */
    private readonly graceMs = 0,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  key(file: string): string {
    return relative(this.root, file).split(sep).join('/');
  }

  async publish(files: string[]): Promise<void> {
    for (const file of files) await this.store.put(this.key(file), file);
  }

  async remove(files: string[]): Promise<void> {
    if (files.length) await this.store.delete(files.map((file) => this.key(file)));
  }

  /**
   * Deletes objects another object has replaced once the grace period is over: a reader that
   * listed them before may still be downloading them, and reads de-duplicate while both exist.
   * A writer that dies first leaves them (duplicates the reads drop; retention deletes them).
   */
  replaced(files: string[]): void {
    if (files.length === 0) return;
    const keys = files.map((file) => this.key(file));
    const timer = setTimeout(() => {
      this.later.delete(timer);
      this.store.delete(keys).catch(this.onError);
    }, this.graceMs);
    timer.unref();
    this.later.set(timer, keys);
  }

  /** Deletes what waits for its grace period now (at shutdown). */
  async flushReplaced(): Promise<void> {
    const keys = [...this.later.entries()].flatMap(([timer, waiting]) => (clearTimeout(timer), waiting));
    this.later.clear();
    if (keys.length) await this.store.delete(keys);
  }

  /**
   * Deletes the objects under `root` (a signal, or the replay segments) in day partitions
   * (`<root>/project_id=<id>/date=<day>/…`) before `firstKept`, whatever node wrote them; returns how many.
   */
  async expireBefore(root: string, firstKept: string): Promise<number> {
    const expired = (await this.store.list(`${root}/`)).filter((object) => {
      const date = /\/date=(\d{4}-\d{2}-\d{2})\//.exec(object.key)?.[1];
      return date !== undefined && date < firstKept;
    });
    await this.store.delete(expired.map((object) => object.key));
    return expired.length;
  }
}
