// A damaged LMDB file makes the native library crash the process (SIGSEGV) rather than throw, so
// the DocStore is checked before this process maps it: the two meta pages' magic and page size,
// then a child process opens it as the service does and reads the ends of every database. A child that
// dies or fails means the file is damaged, and the start stops with a message instead of a crash.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const META_MAGIC = 0xbeefc0de;
/** Where, in each meta page, LMDB keeps its magic and (in the free-list db record) the page size. */
const MAGIC_OFFSET = 24;
const PAGE_SIZE_OFFSET = 48;

export class DocStoreCorruptError extends Error {
  constructor(path: string, why: string) {
    super(
      `${path} is damaged (${why}). Restore the docs/ directory from a backup taken together with faultline.duckdb, ` +
        'or move it aside: the service then starts with an empty document store (stored events and spans lose their documents).',
    );
    this.name = 'DocStoreCorruptError';
  }
}

/** Throws DocStoreCorruptError when `<dir>/data.mdb` exists and is damaged. */
export function checkDocStore(dir: string, databases: readonly string[]): void {
  const path = join(dir, 'data.mdb');
  if (!existsSync(path)) return;
  const why = headerProblem(path);
  if (why) throw new DocStoreCorruptError(path, why);
  const probe = spawnSync(
    process.execPath,
    ['--input-type=commonjs', '-e', PROBE, createRequire(import.meta.url).resolve('lmdb'), dir, JSON.stringify(databases)],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  if (probe.status !== 0)
    throw new DocStoreCorruptError(
      path,
      probe.signal ? `reading it crashed a probe process with ${probe.signal}` : `a probe could not read it: ${probe.stderr.trim().split('\n').pop() ?? ''}`,
    );
}

function headerProblem(path: string): string | undefined {
  const size = statSync(path).size;
  if (size === 0) return undefined; // created, never written: LMDB initializes it
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(64);
    if (readSync(fd, head, 0, 64, 0) < 64) return 'shorter than one page';
    if (head.readUInt32LE(MAGIC_OFFSET) !== META_MAGIC) return 'the first meta page is not an LMDB meta page';
    const pageSize = head.readUInt32LE(PAGE_SIZE_OFFSET);
    if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) return `implausible page size ${pageSize}`;
    if (size < 2 * pageSize) return 'shorter than its two meta pages';
    const second = Buffer.alloc(64);
    readSync(fd, second, 0, 64, pageSize);
    if (second.readUInt32LE(MAGIC_OFFSET) !== META_MAGIC) return 'the second meta page is not an LMDB meta page';
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Run by the child: opens the store as the service does (read-write: opening a database then reads
 * pages a read-only open does not, and a damaged store that passed a read-only probe crashed the
 * service's own open) and reads the first and last entry of each database. It writes nothing.
 */
const PROBE = `
const [lmdbPath, dir, names] = process.argv.slice(1);
const { open } = require(lmdbPath);
const root = open({ path: dir, compression: false, overlappingSync: false });
for (const name of JSON.parse(names)) {
  const db = root.openDB({ name, encoding: 'string' });
  if (!db) continue; // not created yet (a store written before that database existed)
  for (const options of [{ limit: 1 }, { limit: 1, reverse: true }]) for (const entry of db.getRange(options)) void entry.value.length;
}
root.close();
`;
