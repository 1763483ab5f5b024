// The disk's own price for a durable append, apart from the service: a 16 KB write plus
// `fdatasync`, as the DocStore's synced commit pays at least once per group of requests. Its tail is
// the floor under the events' p99 while the commit runs on the main thread (bench/README.md).
//
//   npx tsc -p bench/tsconfig.json && node dist/bench/micro/fsync.js [--dir DIR] [--count 500]
//
// DIR defaults to the temporary directory; give the data directory's disk to measure that one.
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Samples } from '../stats.js';

const { values: args } = parseArgs({ options: { dir: { type: 'string' }, count: { type: 'string', default: '500' } } });
const dir = mkdtempSync(join(args.dir ?? tmpdir(), 'fsync-'));
const fd = openSync(join(dir, 'append.bin'), 'w');
const block = Buffer.alloc(16 * 1024, 7);
const samples = new Samples();
try {
  for (let i = 0; i < Number(args.count); i++) {
    const started = performance.now();
    writeSync(fd, block);
    fdatasyncSync(fd);
    samples.add(performance.now() - started);
  }
} finally {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
const { p50, p99, max, n } = samples.summary();
console.log(
  `16 KB append + fdatasync in ${dir}, ${n} times: p50 ${p50.toFixed(2)} ms, p90 ${samples.percentile(90).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${max.toFixed(2)} ms`,
);
