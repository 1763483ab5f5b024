import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found from this module whether it runs from src/ (tests) or dist/src/ (built). */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || dir.endsWith('/dist')) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the package root');
    dir = parent;
  }
  return dir;
})();
