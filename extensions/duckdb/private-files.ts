// What the service stores is private to the user it runs as: directories 0700, files 0600. New
// files get that from the process's umask (Service.open sets 077: DuckDB, LMDB and the lake's
// COPY create files natively); these repair what an earlier version or another umask left.
import { chmodSync, constants, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

export const PRIVATE_UMASK = 0o077;

/** mkdir -p with mode 0700, and 0700 on the directory if it existed with more. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tighten(dir, 0o700);
}

/** Mode 0600 on the files of `dir` whose names match. */
export function makePrivateFiles(dir: string, names: RegExp): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) if (names.test(name)) tighten(join(dir, name), 0o600);
}

function tighten(path: string, mode: number): void {
  try {
    if ((statSync(path).mode & 0o777 & ~mode) !== 0) chmodSync(path, mode);
  } catch {
    // not ours to change (another owner, a read-only mount): the umask still covers new files
  }
}

/** Syncs a directory, so a file renamed into it survives a crash. */
export async function syncDir(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
