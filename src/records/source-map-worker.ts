// A large source map upload is read, JSON-parsed and checked in a worker thread: tens of MiB of
// JSON and the full decoding of its mappings would hold the event loop, and every other request
// with it, for as long. The worker runs the text of `sourceMapChecker` (source-map.ts), as the
// symbolication worker runs its own (a worker cannot load a .ts module under the tests on Node 20).
import type * as FsModule from 'node:fs';
import { Worker } from 'node:worker_threads';
import type * as WorkerThreadsModule from 'node:worker_threads';
import { SOURCE_MAP_LIMITS, sourceMapChecker } from './source-map.js';

/** Files at least this large are checked in a worker; a smaller one costs less than starting one. */
export const OFF_THREAD_BYTES = 1024 * 1024;
/** The worker's heap: a parsed map takes several times its size in memory. */
const WORKER_MEMORY_MB = 2048;

/** A debug id, or why the file is not a valid source map. */
export type FileCheck = { debugId: string | null } | string;

/** Runs in the worker: only its parameters and what it requires, nothing of this module (its imports above are types only). */
function workerMain(require: NodeJS.Require, checker: typeof sourceMapChecker): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof WorkerThreadsModule;
  const { readFileSync } = require('node:fs') as typeof FsModule;
  const { path, limits } = workerData as { path: string; limits: Parameters<typeof sourceMapChecker>[0] };
  // A map may start with `)]}'` and a line break, against cross-site script inclusion (ECMA-426).
  const text = readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .replace(/^\)\]\}'[^\n]*\n/, '');
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch (error) {
    parentPort?.postMessage(`it is not JSON (${(error as Error).message})`);
    return;
  }
  const checked = checker(limits)(map);
  parentPort?.postMessage(checked.ok ? { debugId: checked.debugId } : checked.message);
}

const WORKER_SOURCE = `(${workerMain.toString()})(require, ${sourceMapChecker.toString()})`;

/** Checks the source map file at `path` in a worker thread of its own. */
export function checkSourceMapInWorker(path: string): Promise<FileCheck> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, limits: SOURCE_MAP_LIMITS },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_MEMORY_MB },
    });
    let answered = false;
    worker.once('message', (result: FileCheck) => {
      answered = true;
      resolve(result);
      void worker.terminate();
    });
    worker.once('error', (error) => {
      answered = true;
      // Out of heap: too large to be a map symbolication could use.
      if (error.message.includes('memory')) resolve(`it needs more than ${WORKER_MEMORY_MB} MiB to check`);
      else reject(error);
    });
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the source map check ended with code ${code}`));
    });
  });
}
