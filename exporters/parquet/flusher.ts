// The flush protocol, three steps with a journal row in lake_flushes (see README "Durability"):
//
//   (a) claim    one transaction: number the staged rows with a new batch id B, journal B 'pending'
//   (b) write    COPY the rows of B to <lake>/.tmp/<signal>-<B>/…, then rename each file into its
//                partition as part-<B>-<i>.parquet (fsynced; rename is atomic)
//   (c) finish   one transaction: delete the staged rows of B, journal B 'done'
//
// A crash before (a) commits leaves the rows staged for the next flush; after (a) or (b), B is
// 'pending' and its rows are still staged, so recovery deletes whatever files of B exist and redoes
// (b) and (c). Every acknowledged row reaches the lake exactly once.
import { existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileListSql, LAKE_ROW_SQL, listDates, listFiles, type Lake, type LakeSignal } from './lake.js';
import { fileNames, filePrefix, flushTmpDir, fsyncDir, listPartitions, publish, removeIfExists, sqlString } from './files.js';

/** Rows per Parquet row group: large, since DuckDB reads small row groups much more slowly (bench/README.md). */
export const ROW_GROUP_ROWS = 122_880;

/** The staging column a batch is sorted by before it is written (events: timestamp; spans: start). */
const STAGING_TIME: Record<LakeSignal, string> = { events: 'timestamp', traces: 'start_ns', replays: 'started_at' };

const REPLAY_KEY = ['dataset', 'project_id', 'replay_id', 'segment_id'];

/**
 * Replay segments are idempotent on (dataset, project, replay id, segment id): a flush writes a
 * segment only when no published file has it, and once per batch (the first copy, as the read
 * layer would keep). Costs a scan of the replay_id column of the batch's projects' replay files.
 */
async function replayDedupSql(lake: Lake, batchId: bigint): Promise<string> {
  const staging = lake.tables.staging.replays;
  const projects = await lake.db.reader().runAndReadAll(`SELECT DISTINCT project_id FROM ${staging} WHERE batch_id = ${batchId}`);
  const files = projects
    .getRows()
    .flatMap(([project]) => listDates(lake.path, 'replays', String(project)).flatMap((date) => listFiles(lake.path, 'replays', String(project), date)));
  const published = files.length
    ? `AND NOT EXISTS (SELECT 1 FROM read_parquet(${fileListSql(files)}, hive_partitioning = true, hive_types = {'project_id': VARCHAR}) l
         WHERE ${REPLAY_KEY.map((column) => `l.${column} = s.${column}`).join(' AND ')})`
    : '';
  return `${published} QUALIFY row_number() OVER (PARTITION BY ${REPLAY_KEY.join(', ')} ORDER BY received_at) = 1`;
}

/** `part-[<writer>-]<B>-<i>.parquet`: the files flush B published. */
export function batchFilePattern(batchId: bigint, writer = ''): RegExp {
  // A writer id may hold `.`, the one character of its alphabet that a pattern reads otherwise.
  return new RegExp(`^${filePrefix(writer).replaceAll('.', '\\.')}${batchId}-\\d+\\.parquet$`);
}

export interface Claimed {
  batchId: bigint;
  rows: number;
}

/**
 * Step (a). Returns undefined when nothing is staged. `onClaimed` runs inside the transaction, so
 * in order with the staging commits (which run on the same serialized writer).
 */
export function claimBatch(lake: Lake, signal: LakeSignal, onClaimed?: () => void): Promise<Claimed | undefined> {
  const { tables } = lake;
  return lake.db.write(async (connection) => {
    const next = await connection.runAndReadAll(`SELECT coalesce(max(batch_id), 0) + 1 FROM ${tables.flushes}`);
    const batchId = BigInt(next.getRows()[0][0] as bigint | number);
    const updated = await connection.run(`UPDATE ${tables.staging[signal]} SET batch_id = ${batchId} WHERE batch_id IS NULL`);
    const rows = updated.rowsChanged;
    onClaimed?.();
    if (rows === 0) return undefined;
    await connection.run(`INSERT INTO ${tables.flushes} VALUES (${batchId}, ${sqlString(signal)}, 'pending', ${rows}, now(), NULL)`);
    return { batchId, rows };
  });
}

/**
 * Step (b): writes the rows of batch B into the lake. Idempotent: a rerun overwrites the same
 * temporary directory and publishes files with the same names. Returns the published paths.
 */
export async function writeBatch(lake: Lake, signal: LakeSignal, batchId: bigint): Promise<string[]> {
  const tmp = flushTmpDir(lake.path, signal, batchId, lake.writer);
  removeIfExists(tmp);
  mkdirSync(dirname(tmp), { recursive: true });
  const dedup = signal === 'replays' ? await replayDedupSql(lake, batchId) : '';
  // A read connection: COPY reads committed rows and writes files, and must not hold up ingest
  // (which waits on the single writer) while it compresses.
  await lake.db
    .reader()
    .run(
      `COPY (SELECT ${LAKE_ROW_SQL[signal]} FROM ${lake.tables.staging[signal]} s WHERE batch_id = ${batchId} ${dedup} ORDER BY ${STAGING_TIME[signal]}) ` +
        `TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}, ` +
        `PARTITION_BY (project_id, date), FILENAME_PATTERN '${filePrefix(lake.writer)}${batchId}-{i}', OVERWRITE_OR_IGNORE)`,
    );
  const published: string[] = [];
  if (existsSync(tmp)) {
    for (const project of readdirSync(tmp)) {
      for (const date of readdirSync(join(tmp, project))) {
        for (const name of fileNames(join(tmp, project, date))) {
          const to = join(lake.path, signal, project, date, name);
          publish(join(tmp, project, date, name), to);
          published.push(to);
        }
      }
    }
    removeIfExists(tmp);
  }
  await lake.remote?.publish(published);
  return published;
}

/** Step (c). */
export async function finishBatch(lake: Lake, signal: LakeSignal, batchId: bigint): Promise<void> {
  await lake.db.write(async (connection) => {
    await connection.run(`DELETE FROM ${lake.tables.staging[signal]} WHERE batch_id = ${batchId}`);
    await connection.run(`UPDATE ${lake.tables.flushes} SET state = 'done', finished_at = now() WHERE batch_id = ${batchId}`);
  });
  lake.changed();
}

/** Flushes of the signal that were claimed and not finished (a crash, or a failed write). */
export async function pendingBatches(lake: Lake, signal: LakeSignal): Promise<bigint[]> {
  const result = await lake.db
    .reader()
    .runAndReadAll(`SELECT batch_id FROM ${lake.tables.flushes} WHERE state = 'pending' AND signal = ${sqlString(signal)} ORDER BY batch_id`);
  return result.getRows().map(([id]) => BigInt(id as bigint));
}

/** Deletes every file batch B published in any partition of the signal, and its temporary directory. */
export function removeBatchFiles(lake: string, signal: LakeSignal, batchId: bigint, writer = ''): number {
  const pattern = batchFilePattern(batchId, writer);
  let removed = 0;
  for (const partition of listPartitions(lake, signal)) {
    const dir = join(lake, signal, partition);
    const names = fileNames(dir).filter((name) => pattern.test(name));
    for (const name of names) unlinkSync(join(dir, name));
    if (names.length) fsyncDir(dir);
    removed += names.length;
  }
  removeIfExists(flushTmpDir(lake, signal, batchId, writer));
  return removed;
}

/** Completes a pending batch from scratch: its staged rows are still there. */
export async function redoBatch(lake: Lake, signal: LakeSignal, batchId: bigint): Promise<string[]> {
  removeBatchFiles(lake.path, signal, batchId, lake.writer);
  const files = await writeBatch(lake, signal, batchId);
  await finishBatch(lake, signal, batchId);
  return files;
}
