// Compaction: flushes on the interval leave many small files; merge the small files of each
// partition into one, journaled in lake_compactions so that a crash at any step leaves every row
// in exactly one place:
//
//   1. journal   INSERT (id, signal, partition_dir, inputs, output, 'pending')
//   2. write     COPY the inputs, sorted by time, to .part-c<id>.parquet.tmp in the same directory
//   3. publish   fsync, rename to part-c<id>.parquet (atomic), fsync the directory
//   4. remove    unlink the inputs
//   5. done      UPDATE … state = 'done'
//
// Recovery of a pending compaction: output present (crash after 3) -> delete the inputs left;
// output absent (crash before 3) -> delete the temporary file, inputs untouched. Between 3 and 4 a
// reader may see the inputs and the output together; the read layer de-duplicates by id.
import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { Database } from '../../extensions/duckdb/database.js';
import { fileListSql, type Lake, type LakeSignal } from './lake.js';
import { fileNames, filePrefix, fsyncDir, isWritersFile, listPartitions, publish, removeIfExists, sqlString } from './files.js';
import { ROW_GROUP_ROWS } from './flusher.js';

/** The lake column compacted files are sorted by. */
const LAKE_TIME: Record<LakeSignal, string> = { events: 'timestamp', traces: 'start_time_unix_nano', replays: 'started_at' };

/** Most rows one merge writes, so that a merge stays short however many small files piled up. */
export const MAX_MERGE_ROWS = 1_000_000;

export interface Compaction {
  id: string;
  signal: LakeSignal;
  /** Relative to the lake: `events/project_id=p1/date=2026-11-22`. */
  partitionDir: string;
  /** File names in the partition directory. */
  inputs: string[];
  /** `part-c<id>.parquet`. */
  output: string;
}

/** The temporary name of a compaction's output: dot-prefixed, and not ending in .parquet, so no reader or glob takes it. */
export function compactionTmpName(output: string): string {
  return `.${output}.tmp`;
}

/** Row counts of lake files, read once from each file's footer (files never change once published). */
export class RowCounts {
  private readonly known = new Map<string, number>();

  async of(db: Database, paths: string[]): Promise<Map<string, number>> {
    const missing = paths.filter((path) => !this.known.has(path));
    if (missing.length) {
      const result = await db.reader().runAndReadAll(`SELECT file_name, num_rows FROM parquet_file_metadata(${fileListSql(missing)})`);
      for (const [name, rows] of result.getRows()) this.known.set(String(name), Number(rows));
    }
    return new Map(paths.map((path) => [path, this.known.get(path) ?? 0]));
  }

  forget(paths: string[]): void {
    for (const path of paths) this.known.delete(path);
  }
}

/**
 * Finds partitions with at least two files under `minRows` rows and plans one merge for each.
 * `skip` names files that must not be touched (those of a flush still pending).
 */
export async function planCompactions(
  lake: Lake,
  signal: LakeSignal,
  minRows: number,
  counts: RowCounts,
  skip: (name: string) => boolean = () => false,
): Promise<Array<Omit<Compaction, 'id' | 'output'>>> {
  const plans: Array<Omit<Compaction, 'id' | 'output'>> = [];
  for (const partition of listPartitions(lake.path, signal)) {
    const dir = join(lake.path, signal, partition);
    const names = fileNames(dir).filter((name) => name.endsWith('.parquet') && isWritersFile(name, lake.writer) && !skip(name));
    if (names.length < 2) continue;
    const rows = await counts.of(
      lake.db,
      names.map((name) => join(dir, name)),
    );
    const inputs: string[] = [];
    let total = 0;
    for (const name of names) {
      const n = rows.get(join(dir, name)) ?? 0;
      if (n >= minRows) continue;
      if (inputs.length >= 2 && total + n > MAX_MERGE_ROWS) break;
      inputs.push(name);
      total += n;
    }
    if (inputs.length >= 2) plans.push({ signal, partitionDir: join(signal, partition), inputs });
  }
  return plans;
}

/** Step 1. */
export async function journalCompaction(lake: Lake, plan: Omit<Compaction, 'id' | 'output'>): Promise<Compaction> {
  const id = uuidv7().replace(/-/g, '');
  const compaction: Compaction = { ...plan, id, output: `${filePrefix(lake.writer)}c${id}.parquet` };
  await lake.db.write((connection) =>
    connection.run(`INSERT INTO ${lake.tables.compactions} VALUES ($id, $signal, $dir, $inputs, $output, 'pending', now(), NULL)`, {
      id,
      signal: plan.signal,
      dir: plan.partitionDir,
      inputs: JSON.stringify(plan.inputs),
      output: compaction.output,
    }),
  );
  return compaction;
}

/** Step 2. Returns the rows written. */
export async function writeCompaction(lake: Lake, compaction: Compaction): Promise<number> {
  const dir = join(lake.path, compaction.partitionDir);
  const tmp = join(dir, compactionTmpName(compaction.output));
  const inputs = compaction.inputs.map((name) => join(dir, name));
  const result = await lake.db
    .reader()
    .run(
      `COPY (SELECT * FROM read_parquet(${fileListSql(inputs)}, hive_partitioning = false, union_by_name = true) ORDER BY ${LAKE_TIME[compaction.signal]}) ` +
        `TO ${sqlString(tmp)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`,
    );
  return result.rowsChanged;
}

/** Step 3. */
export function publishCompaction(lake: Lake, compaction: Compaction): void {
  const dir = join(lake.path, compaction.partitionDir);
  publish(join(dir, compactionTmpName(compaction.output)), join(dir, compaction.output));
}

/** Step 4. */
export function removeCompactionInputs(lake: Lake, compaction: Compaction): void {
  const dir = join(lake.path, compaction.partitionDir);
  let removed = false;
  for (const name of compaction.inputs) {
    if (!existsSync(join(dir, name))) continue;
    unlinkSync(join(dir, name));
    removed = true;
  }
  if (removed) {
    fsyncDir(dir);
    lake.changed();
  }
}

/** Step 5. */
export function finishCompaction(lake: Lake, id: string): Promise<void> {
  return lake.db.write(async (connection) => {
    await connection.run(`UPDATE ${lake.tables.compactions} SET state = 'done', finished_at = now() WHERE id = $id`, { id });
  });
}

/** All five steps. Returns the merged file's path. */
export async function compact(lake: Lake, plan: Omit<Compaction, 'id' | 'output'>, counts?: RowCounts): Promise<string> {
  const compaction = await journalCompaction(lake, plan);
  const dir = join(lake.path, compaction.partitionDir);
  const inputs = compaction.inputs.map((name) => join(dir, name));
  const expected = counts ? [...(await counts.of(lake.db, inputs)).values()].reduce((a, b) => a + b, 0) : undefined;
  const written = await writeCompaction(lake, compaction);
  if (expected !== undefined && written !== expected) {
    // Never publish a merge that lost or gained rows: drop it, keep the inputs.
    removeIfExists(join(dir, compactionTmpName(compaction.output)));
    await finishCompaction(lake, compaction.id);
    throw new Error(`compaction ${compaction.id} wrote ${written} rows from inputs holding ${expected}; kept the inputs`);
  }
  publishCompaction(lake, compaction);
  // On an object store too: the merged object first; the inputs go after a grace period.
  await lake.remote?.publish([join(dir, compaction.output)]);
  removeCompactionInputs(lake, compaction);
  lake.remote?.replaced(inputs);
  counts?.forget(inputs);
  await finishCompaction(lake, compaction.id);
  return join(dir, compaction.output);
}

/** Resolves compactions a crash (or a failure) left pending, of one signal or all. Returns how many. */
export async function recoverCompactions(lake: Lake, signal?: LakeSignal): Promise<number> {
  const result = await lake.db
    .reader()
    .runAndReadAll(
      `SELECT id, signal, partition_dir, inputs, output FROM ${lake.tables.compactions} WHERE state = 'pending'` +
        (signal ? ` AND signal = ${sqlString(signal)}` : '') +
        ' ORDER BY id',
    );
  const pending = result.getRows().map(([id, signal, partitionDir, inputs, output]): Compaction => ({
    id: String(id),
    signal: String(signal) as LakeSignal,
    partitionDir: String(partitionDir),
    inputs: JSON.parse(String(inputs)) as string[],
    output: String(output),
  }));
  for (const compaction of pending) {
    const dir = join(lake.path, compaction.partitionDir);
    if (existsSync(join(dir, compaction.output))) {
      await lake.remote?.publish([join(dir, compaction.output)]);
      removeCompactionInputs(lake, compaction);
      lake.remote?.replaced(compaction.inputs.map((name) => join(dir, name)));
    } else removeIfExists(join(dir, compactionTmpName(compaction.output)));
    await finishCompaction(lake, compaction.id);
  }
  return pending.length;
}
