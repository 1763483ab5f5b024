// Where the package is, found from this file (bench/ in the sources, dist/bench/ once built), so
// the bench needs nothing from src/ to find bin/faultline.js or the files it reads.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package root above ${from}`);
  }
}

export const packageRoot = findRoot(dirname(fileURLToPath(import.meta.url)));
export const BIN = join(packageRoot, 'bin/faultline.js');
