// File-system steps of the lake writer. A file is published by rename (atomic on one file system,
// so a reader sees all of it or none); before a rename the file's data is fsynced and after it the
// directory, so that what the DuckDB journal says is done is on disk even after a power loss.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LakeSignal } from './lake.js';

/** Where flushes write before publishing: `<lake>/.tmp/[<writer>/]<signal>-<batch>/` (outside every signal's tree). */
export function flushTmpDir(lake: string, signal: LakeSignal, batchId: bigint, writer = ''): string {
  return join(lakeTmpRoot(lake, writer), `${signal}-${batchId}`);
}

/** The temporary area of a writer: `<lake>/.tmp`, or `<lake>/.tmp/<writer>` on a shared lake. */
export function lakeTmpRoot(lake: string, writer = ''): string {
  return writer ? join(lake, '.tmp', writer) : join(lake, '.tmp');
}

/** How the names of a writer's files start: `part-`, or `part-<writer>-` on a shared lake. */
export function filePrefix(writer = ''): string {
  return writer ? `part-${writer}-` : 'part-';
}

/**
 * Whether a published file (`part-[<writer>-]<batch>-<i>.parquet` or `part-[<writer>-]c<id>.parquet`)
 * or a compaction's temporary file (the same name behind a dot, ending `.tmp`) is this writer's.
 * A prefix test is not enough once ids may hold `-`: writer `w`'s prefix `part-w-` also starts the
 * files of writer `w-1`. The part after the prefix is never anything but `<digits>-<digits>` or
 * `c<hex>`, so a name belongs to one writer only.
 */
export function isWritersFile(name: string, writer = ''): boolean {
  if (!writer) return name.startsWith('part-') || name.startsWith('.part-');
  const prefix = filePrefix(writer);
  const start = name.startsWith(prefix) ? prefix.length : name.startsWith(`.${prefix}`) ? prefix.length + 1 : -1;
  if (start < 0) return false;
  return OWN_SUFFIX.test(name.slice(start));
}

const OWN_SUFFIX = /^(?:\d+-\d+|c[0-9a-f]+)\.parquet(?:\.tmp)?$/;

export function fsyncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename or unlink in the directory durable. Not every platform can fsync a directory. */
export function fsyncDir(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EISDIR/EPERM/EINVAL on platforms without directory fsync: nothing more can be done.
  } finally {
    closeSync(fd);
  }
}

/** mkdir -p that also makes each new directory's entry durable in its parent. */
export function mkdirDurable(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) mkdirDurable(parent);
  mkdirSync(dir, { recursive: true });
  fsyncDir(parent);
}

/** Publishes a finished file: fsync, rename into place, fsync the directory. */
export function publish(from: string, to: string): void {
  fsyncFile(from);
  mkdirDurable(dirname(to));
  renameSync(from, to);
  fsyncDir(dirname(to));
}

export function removeIfExists(path: string): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { recursive: true, force: true });
  return true;
}

/**
 * The partition directories of a signal, as paths relative to the signal directory
 * (`project_id=p1/date=2026-11-22`): two levels of hive directories, whatever DuckDB named them.
 */
export function listPartitions(lake: string, signal: LakeSignal): string[] {
  const root = join(lake, signal);
  const out: string[] = [];
  for (const project of subdirs(root)) {
    for (const date of subdirs(join(root, project))) out.push(join(project, date));
  }
  return out.sort();
}

/** Every file name in a directory (none when it does not exist). */
export function fileNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.includes('='))
    .map((entry) => entry.name)
    .sort();
}

/** SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
