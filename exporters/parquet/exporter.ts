// The parquet exporter: acknowledges after a staging commit, flushes staged rows to the lake by
// size or on an interval, compacts small files in the background. Per signal, flushes and
// compactions run one at a time (a promise chain), so they never touch the same files at once.
// It owns its staging and journal tables (migrations.ts), serves reads from the lake and its
// staging rows (read-source.ts), and drops expired day partitions. Replay segments' events are
// gzip blobs under <lake>/replay-segments (content-addressed, synced before the row is staged), so
// every node that reads the lake reads them too; with the lake on S3 they are objects of the
// bucket instead (s3-segments.ts), PUT before the row is staged.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Exporter, ExporterSettings, ExpiryResult } from '../../src/engine/component.js';
import { signalBatch, type Item, type Signal } from '../../src/engine/item.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import { makePrivateDir } from '../../extensions/duckdb/private-files.js';
import type { ReplaySegment } from '../../src/records/replay.js';
import type { ReadSource } from '../../src/engine/read-source.js';
import { SegmentBlobs } from '../../src/storage/segment-blobs.js';
import { compact, recoverCompactions, RowCounts, planCompactions } from './compactor.js';
import type { ParquetConfig } from './config.js';
import { batchFilePattern, claimBatch, finishBatch, pendingBatches, redoBatch, writeBatch } from './flusher.js';
import { GroupCommit } from './group-commit.js';
import { dropPartitionsBefore, fileListSql, lakePath, listDates, listFiles, listProjects, type Lake, type LakeSignal } from './lake.js';
import { lakeTables, parquetMigrations } from './migrations.js';
import { PublishedAcks } from './published-acks.js';
import { LakeReadSource } from './read-source.js';
import { RemoteLake } from './lake-store.js';
import { S3LakeCache, S3LakeReadSource } from './s3-read-source.js';
import { S3LakeStore } from './s3-store.js';
import { S3SegmentBlobs, SEGMENTS_ROOT } from './s3-segments.js';
import { LAKE_SIGNALS, recover } from './recovery.js';
import { stagedTotals, stageItems } from './staging.js';
import { databaseOf } from '../../extensions/duckdb/index.js';

export interface FlushResult {
  signal: LakeSignal;
  /** The batch flushed; undefined when nothing was staged. */
  batchId?: bigint;
  rows: number;
  /** Published Parquet files (absolute paths), those of redone pending batches included. */
  files: string[];
}

export interface CompactionResult {
  signal: LakeSignal;
  /** The merged files written (absolute paths), one per compacted partition. */
  outputs: string[];
}

export class ParquetExporter implements Exporter {
  private readonly lake: Lake;
  private generation = 0;
  private readonly source: ReadSource;
  /** The lake's bucket (parquet `s3`): a writer publishes to it, a read-only node reads it through `cache`. */
  private readonly store?: S3LakeStore;
  private readonly remote?: RemoteLake;
  private readonly cache?: S3LakeCache;
  private readonly readOnly: boolean;
  private readonly logger: Logger;
  private readonly config: ParquetConfig;
  private readonly commits: Record<LakeSignal, GroupCommit<Item>>;
  /** Rows and document bytes staged and not yet claimed by a flush (an estimate for the triggers). */
  private readonly staged: Record<LakeSignal, { rows: number; bytes: number }> = {
    events: { rows: 0, bytes: 0 },
    traces: { rows: 0, bytes: 0 },
    replays: { rows: 0, bytes: 0 },
  };
  private readonly chains: Record<LakeSignal, Promise<unknown>> = { events: Promise.resolve(), traces: Promise.resolve(), replays: Promise.resolve() };
  private readonly flushQueued: Record<LakeSignal, boolean> = { events: false, traces: false, replays: false };
  private readonly compactionQueued: Record<LakeSignal, boolean> = { events: false, traces: false, replays: false };
  /** A flush failed after claiming its batch: retry on the next tick even if nothing new is staged. */
  private readonly retry: Record<LakeSignal, boolean> = { events: false, traces: false, replays: false };
  /** Replay segments' events, under the lake directory; with `s3`, in the bucket (`s3Blobs`). */
  private readonly blobs: SegmentBlobs;
  private readonly s3Blobs?: S3SegmentBlobs;
  /** Blobs stored by an export whose rows are not staged yet: expiry must not take them. */
  private readonly storing = new Map<string, number>();
  private readonly counts = new RowCounts();
  /** With `ack: lake`, the exports waiting for their rows to be published, by signal. */
  private readonly acks?: Record<LakeSignal, PublishedAcks>;
  private readonly timers: NodeJS.Timeout[] = [];
  private started = false;

  constructor(private readonly settings: ExporterSettings<ParquetConfig>) {
    const { host, config, id } = settings;
    this.lake = {
      db: databaseOf(host),
      path: lakePath(config, host.settings),
      tables: lakeTables(id.name),
      writer: config.writer_id ?? '',
      changed: () => this.generation++,
    };
    this.readOnly = settings.readOnly ?? false;
    this.blobs = new SegmentBlobs(join(this.lake.path, 'replay-segments'));
    this.logger = host.logger.child({ component: id.text });
    const s3 = config.s3;
    if (s3) {
      this.store = new S3LakeStore(s3);
      this.remote = new RemoteLake(this.store, this.lake.path, s3.replaced_grace_ms, (error) =>
        this.logger.warn({ err: String(error) }, 'could not delete replaced lake objects; retention removes them'),
      );
      if (!this.readOnly) this.lake.remote = this.remote;
    }
    if (s3 && this.store && this.readOnly) {
      const cache = new S3LakeCache(this.store, join(this.lake.path, '.s3-cache'), s3.cache_max_bytes, s3.refresh_ms, this.logger);
      this.cache = cache;
      this.s3Blobs = new S3SegmentBlobs(this.store, (key) => cache.object(key));
      this.source = new S3LakeReadSource(id.text, cache, this.lake.tables, this.s3Blobs);
    } else {
      if (this.store) this.s3Blobs = new S3SegmentBlobs(this.store);
      const s3Blobs = this.s3Blobs;
      this.source = new LakeReadSource(
        id.text,
        this.lake,
        () => this.generation,
        // On S3, a blob this writer stored on disk before its blobs went to the bucket is still read.
        async (row) => (await s3Blobs?.gzipped(row)) ?? this.blobs.gzipped(String(row.blob)),
      );
    }
    this.config = config;
    const stage = (signal: LakeSignal) => (items: Item[]) =>
      this.lake.db.write(async (connection) => {
        const bytes = await stageItems(connection, this.lake.tables, signal, items);
        this.staged[signal].rows += items.length;
        this.staged[signal].bytes += bytes;
      });
    this.commits = {
      events: new GroupCommit(stage('events'), config.max_batch_items),
      traces: new GroupCommit(stage('traces'), config.max_batch_items),
      replays: new GroupCommit(stage('replays'), config.max_batch_items),
    };
    if (config.ack === 'lake') {
      const acks = (signal: LakeSignal) => new PublishedAcks(signal, config.flush.linger_ms, () => this.scheduleFlush(signal));
      this.acks = { events: acks('events'), traces: acks('traces'), replays: acks('replays') };
    }
  }

  /** Recovers what a crash interrupted, then starts the flush and compaction timers. */
  async start(): Promise<void> {
    await migrate(this.lake.db, this.settings.id.text, parquetMigrations(this.lake.tables, this.settings.id.name === undefined), undefined);
    // Serving reads only (nothing exports to it): the lake is some writer's, which recovers and
    // compacts it; this process only reads.
    if (this.readOnly) {
      await this.cache?.start();
      return;
    }
    makePrivateDir(this.lake.path);
    this.started = true;
    const recovery = recover(this.lake, this.logger);
    for (const signal of LAKE_SIGNALS) this.chains[signal] = recovery.catch(() => undefined);
    try {
      await recovery;
    } catch (error) {
      this.started = false;
      throw error;
    }
    for (const signal of LAKE_SIGNALS) this.staged[signal] = await stagedTotals(this.lake.db.reader(), this.lake.tables, signal);
    const flushTimer = setInterval(() => {
      for (const signal of LAKE_SIGNALS) if (this.staged[signal].rows > 0 || this.retry[signal]) this.scheduleFlush(signal);
    }, this.config.flush.interval_ms);
    flushTimer.unref();
    this.timers.push(flushTimer);
    if (this.config.compaction.enabled) {
      const compactionTimer = setInterval(() => {
        for (const signal of LAKE_SIGNALS) this.scheduleCompaction(signal);
      }, this.config.compaction.interval_ms);
      compactionTimer.unref();
      this.timers.push(compactionTimer);
    }
  }

  /** Resolves once the items are committed to the staging table (durable); the lake write follows. */
  async export(signal: Signal, items: Item[]): Promise<void> {
    const batch = signalBatch(signal, items);
    if (batch.signal === 'replays') await this.exportReplays(batch.items);
    else await this.commits[signal].submit(items);
    const { rows, bytes } = this.staged[signal];
    if (rows >= this.config.flush.max_rows || bytes >= this.config.flush.max_bytes) this.scheduleFlush(signal);
    await this.acks?.[signal].wait();
  }

  /**
   * Each segment's events go to the lake's blob directory (compressed, synced) or its bucket
   * first, then its row to staging: a crash in between leaves an unreferenced blob, never a row
   * without its events.
   */
  private async exportReplays(segments: Item<ReplaySegment>[]): Promise<void> {
    const shas = segments.map(({ data }) => SegmentBlobs.digest(data.events_json));
    for (const sha of shas) this.storing.set(sha, (this.storing.get(sha) ?? 0) + 1);
    try {
      await Promise.all(
        segments.map(async (segment, i) => {
          const { data } = segment;
          const blob = this.s3Blobs ? await this.s3Blobs.put(segment, shas[i]) : await this.blobs.put(data.events_json, shas[i]);
          data.blob = blob.sha;
          data.stored_bytes = blob.bytes;
        }),
      );
      await this.commits.replays.submit(segments);
    } finally {
      for (const sha of shas) {
        const n = (this.storing.get(sha) ?? 1) - 1;
        if (n > 0) this.storing.set(sha, n);
        else this.storing.delete(sha);
      }
    }
  }

  /**
   * Flushes everything staged for the signal (both when omitted) to the lake now, after the items
   * handed to export() so far are committed; resolves when the files are published and the flush
   * is journaled done. For tests and operations.
   */
  async flushNow(signal?: LakeSignal): Promise<FlushResult[]> {
    const signals = signal ? [signal] : [...LAKE_SIGNALS];
    await Promise.all(signals.map((s) => this.commits[s].flush()));
    return Promise.all(signals.map((s) => this.enqueue(s, () => this.flush(s))));
  }

  /**
   * Merges the small files of every partition of the signal (both when omitted) now, whether or
   * not background compaction is enabled. For tests and operations.
   */
  async compactNow(signal?: LakeSignal): Promise<CompactionResult[]> {
    const signals = signal ? [signal] : [...LAKE_SIGNALS];
    return Promise.all(signals.map((s) => this.enqueue(s, () => this.compact(s))));
  }

  /** Rows staged and not yet claimed by a flush (an estimate kept in memory). */
  stagedRows(signal: LakeSignal): number {
    return this.staged[signal].rows;
  }

  /** Stops the timers, waits for in-flight commits, and flushes everything staged to the lake. */
  async shutdown(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    for (const signal of LAKE_SIGNALS) this.acks?.[signal].stop();
    this.cache?.stop();
    await Promise.all(LAKE_SIGNALS.map((signal) => this.commits[signal].flush()));
    if (!this.started) {
      this.store?.close();
      return;
    }
    await this.remote?.flushReplaced().catch(() => undefined);
    try {
      await this.flushNow();
    } catch (error) {
      // The rows stay staged (durable); the next start flushes them.
      this.logger.error({ err: error }, 'could not flush the staged rows to the lake at shutdown; they stay staged for the next start');
    } finally {
      await Promise.all(LAKE_SIGNALS.map((signal) => this.chains[signal]));
      this.started = false;
      this.store?.close();
    }
  }

  readSource(): ReadSource {
    return this.source;
  }

  /** Staged rows past the cutoff (not yet claimed by a flush) and whole day partitions before it. */
  async expire(firstKept: Partial<Record<Signal, string>>): Promise<ExpiryResult> {
    const deletedRows: Record<string, number> = {};
    const deletedPartitions: string[] = [];
    for (const signal of LAKE_SIGNALS) {
      const day = firstKept[signal];
      if (!day) continue;
      const table = this.lake.tables.staging[signal];
      const micros = BigInt(Date.parse(day)) * 1000n;
      const before = {
        events: `timestamp < make_timestamp(${micros}::BIGINT)`,
        traces: `start_ns < ${micros * 1000n}`,
        replays: `started_at < make_timestamp(${micros}::BIGINT)`,
      }[signal];
      deletedRows[table] = await this.lake.db.write(async (c) => (await c.run(`DELETE FROM ${table} WHERE ${before} AND batch_id IS NULL`)).rowsChanged);
      deletedPartitions.push(...dropPartitionsBefore(this.lake.path, signal, day));
      const objects = await this.remote?.expireBefore(signal, day);
      if (objects) deletedRows[`${this.store?.description}/${signal}`] = objects;
    }
    // In the bucket, a segment's blob is dated like its row: expired with the row's day.
    if (firstKept.replays && this.remote) {
      const blobs = await this.remote.expireBefore(SEGMENTS_ROOT, firstKept.replays);
      if (blobs) deletedRows[`${this.store?.description}/${SEGMENTS_ROOT}`] = blobs;
    }
    if (deletedPartitions.length) this.lake.changed();
    // The writer collects the blobs: a read-only node cannot see the rows its writer has staged.
    if (firstKept.replays && !this.readOnly && (!this.s3Blobs || existsSync(this.blobs.dir))) {
      const removed = await this.enqueue('replays', () => this.collectBlobs());
      if (removed) deletedRows['replay-segments'] = removed;
    }
    return { deletedRows, deletedPartitions };
  }

  /**
   * Deletes the segment blobs no staged row or lake file references (nor an export in flight).
   * Runs in the replays chain, so no flush or compaction moves rows meanwhile; staging is read
   * before the files are listed, so a row flushed in between is found in its file.
   */
  private async collectBlobs(): Promise<number> {
    const reader = this.lake.db.reader();
    const kept = new Set<string>();
    const staged = await reader.runAndReadAll(`SELECT DISTINCT blob FROM ${this.lake.tables.staging.replays}`);
    for (const [sha] of staged.getRows()) kept.add(String(sha));
    const files = listProjects(this.lake.path, 'replays').flatMap((project) =>
      listDates(this.lake.path, 'replays', project).flatMap((date) => listFiles(this.lake.path, 'replays', project, date)),
    );
    if (files.length) {
      const referenced = await reader.runAndReadAll(`SELECT DISTINCT blob FROM read_parquet(${fileListSql(files)}, hive_partitioning = false)`);
      for (const [sha] of referenced.getRows()) kept.add(String(sha));
    }
    let shards: string[];
    try {
      shards = await readdir(this.blobs.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    const unreferenced: string[] = [];
    for (const shard of shards.filter((name) => /^[0-9a-f]{2}$/.test(name))) {
      for (const name of await readdir(join(this.blobs.dir, shard))) {
        const sha = /^([0-9a-f]{64})\.json\.gz$/.exec(name)?.[1];
        if (sha && !kept.has(sha) && !this.storing.has(sha)) unreferenced.push(sha);
      }
    }
    await this.blobs.remove(unreferenced);
    return unreferenced.length;
  }

  private enqueue<T>(signal: LakeSignal, task: () => Promise<T>): Promise<T> {
    const run = this.chains[signal].then(task, task);
    this.chains[signal] = run.catch(() => undefined);
    return run;
  }

  private scheduleFlush(signal: LakeSignal): void {
    if (this.flushQueued[signal]) return;
    this.flushQueued[signal] = true;
    this.enqueue(signal, () => {
      this.flushQueued[signal] = false;
      return this.flush(signal);
    }).catch((error: unknown) => this.logger.error({ err: error, signal }, 'lake flush failed; the rows stay staged and are retried'));
  }

  private scheduleCompaction(signal: LakeSignal): void {
    if (this.compactionQueued[signal]) return;
    this.compactionQueued[signal] = true;
    this.enqueue(signal, () => {
      this.compactionQueued[signal] = false;
      return this.compact(signal);
    }).catch((error: unknown) => this.logger.error({ err: error, signal }, 'lake compaction failed'));
  }

  /** Runs in the signal's chain. */
  private async flush(signal: LakeSignal): Promise<FlushResult> {
    const files: string[] = [];
    try {
      // A batch a failed flush left claimed: its rows are still staged, redo it first.
      for (const batchId of await pendingBatches(this.lake, signal)) files.push(...(await redoBatch(this.lake, signal, batchId)));
      let claimed;
      let claim = 0;
      try {
        claimed = await claimBatch(this.lake, signal, () => {
          this.staged[signal] = { rows: 0, bytes: 0 };
          claim = this.acks?.[signal].claim() ?? 0;
        });
      } catch (error) {
        this.staged[signal] = await stagedTotals(this.lake.db.reader(), this.lake.tables, signal);
        throw error;
      }
      if (!claimed) {
        this.acks?.[signal].publishedUpTo(claim);
        return { signal, rows: 0, files };
      }
      files.push(...(await writeBatch(this.lake, signal, claimed.batchId)));
      await finishBatch(this.lake, signal, claimed.batchId);
      this.retry[signal] = false;
      this.acks?.[signal].publishedUpTo(claim);
      this.logger.debug({ signal, batch_id: String(claimed.batchId), rows: claimed.rows, files: files.length }, 'flushed to the lake');
      return { signal, batchId: claimed.batchId, rows: claimed.rows, files };
    } catch (error) {
      this.retry[signal] = true;
      throw error;
    }
  }

  /** Runs in the signal's chain. */
  private async compact(signal: LakeSignal): Promise<CompactionResult> {
    // A compaction that failed half-way in this process: resolve it before planning again, or its
    // published output and its inputs could both be merged a second time.
    await recoverCompactions(this.lake, signal);
    const pending = (await pendingBatches(this.lake, signal)).map((batch) => batchFilePattern(batch, this.lake.writer));
    const plans = await planCompactions(this.lake, signal, this.config.compaction.min_rows, this.counts, (name) =>
      pending.some((pattern) => pattern.test(name)),
    );
    const outputs: string[] = [];
    for (const plan of plans) {
      const output = await compact(this.lake, plan, this.counts);
      this.logger.debug({ signal, partition: plan.partitionDir, inputs: plan.inputs.length }, 'compacted lake files');
      outputs.push(output);
    }
    return { signal, outputs };
  }
}
