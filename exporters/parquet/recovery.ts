// Recovery at start: bring the lake and its journals back to a state where every acknowledged row
// is in exactly one place (staging or one published file, counting a compaction's inputs and
// output as one), whatever step a crash interrupted.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Lake, LakeSignal } from './lake.js';
import { recoverCompactions } from './compactor.js';
import { fileNames, isWritersFile, lakeTmpRoot, listPartitions, mkdirDurable, removeIfExists } from './files.js';
import { pendingBatches, redoBatch } from './flusher.js';

export interface Recovered {
  compactions: number;
  tmpFiles: number;
  flushes: number;
  /** Files the redone flushes published. */
  files: number;
}

export const LAKE_SIGNALS: readonly LakeSignal[] = ['events', 'traces', 'replays'];

/** Must run before any flush or compaction of the lake starts (nothing else may be writing it). */
export async function recover(lake: Lake, logger: Logger): Promise<Recovered> {
  mkdirDurable(lake.path);
  const compactions = await recoverCompactions(lake);
  const tmpFiles = sweepTemporaryFiles(lake.path, lake.writer);
  let flushes = 0;
  let published = 0;
  for (const signal of LAKE_SIGNALS) {
    for (const batchId of await pendingBatches(lake, signal)) {
      const files = await redoBatch(lake, signal, batchId);
      logger.info({ signal, batch_id: String(batchId), files: files.length }, 'redid an unfinished lake flush');
      flushes++;
      published += files.length;
    }
  }
  const recovered = { compactions, tmpFiles, flushes, files: published };
  if (compactions || tmpFiles || flushes) logger.info(recovered, 'recovered the parquet lake');
  return recovered;
}

/**
 * Removes the writer's `<lake>/.tmp` (on a shared lake `<lake>/.tmp/<writer>`) and the
 * dot-prefixed temporary files its compactions leave in partitions (never another writer's).
 */
export function sweepTemporaryFiles(lake: string, writer = ''): number {
  let removed = removeIfExists(lakeTmpRoot(lake, writer)) ? 1 : 0;
  for (const signal of LAKE_SIGNALS) {
    for (const partition of listPartitions(lake, signal)) {
      const dir = join(lake, signal, partition);
      for (const name of fileNames(dir).filter((n) => n.startsWith('.') && isWritersFile(n, writer))) {
        unlinkSync(join(dir, name));
        removed++;
      }
    }
  }
  return removed;
}
