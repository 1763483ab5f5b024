// Micro-bench for issue #30 item 2: what an acknowledged item's durability costs at a steady
// offered rate, with and without the DocStore's commit linger, and what a DuckDB row costs
// appended value by value or in column batches (data chunks).
//
//   npx tsc -p bench/tsconfig.json && node dist/bench/micro/group-commit.js [--seconds 4] [--rates 100,500,1000,2000,4000]
//     [--index 10,25,100,500,2000] [--index-events 4000] [--rows 20000] [--dir /tmp]   (an empty list or 0 skips a part)
//
// --dir is where the DocStore goes: its disk's fsync sets the commit's price (a tmpfs such as
// /dev/shm has none, which shows the CPU side of a commit alone).
//
// Commits: a child process offers requests at Poisson-distributed times (it sleeps with
// Atomics.wait, so arrivals are not bunched on timer ticks) and writes one byte per request down a
// pipe; this process stores one ~6 KB document and one pending entry per request, as the duckdb
// exporter does for a one-event request, and reports its own CPU per request, the synced commits
// per second, and the added latency (byte read to commit resolved). Index transactions: the
// exporter's event index transaction on batches of several sizes, CPU per event. Rows: the same
// slim events appended into `events` by the row Appender and by column batches, CPU per row.
import type { DuckDBAppender } from '@duckdb/node-api';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DocStore } from '../../exporters/duckdb/docs.js';
import { DUCKDB_MIGRATIONS } from '../../exporters/duckdb/migrations.js';
import { eventIntake } from '../../exporters/duckdb/events-intake.js';
import { closeAppenders } from '../../exporters/duckdb/kept-appenders.js';
import type { LingerPolicy } from '../../exporters/duckdb/commit-linger.js';
import type { Accepted } from '../../exporters/duckdb/intake.js';
import { DEFAULT_LINGER } from '../../exporters/duckdb/commit-linger.js';
import { appendEventColumns } from '../../src/records/event-row.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { benchDatabase } from './extensions.js';
import { appendEventChunks } from './column-batch.js';
import { round, Samples } from '../stats.js';

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
}

if (process.argv[2] === '--child') offer(Number(process.argv[3]), Number(process.argv[4]));
else await main();

/** The load generator (child): one byte per request on stdout at Poisson times, for `seconds`. */
function offer(rate: number, seconds: number): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const start = performance.now();
  let due = start;
  let sent = 0;
  const total = Math.round(rate * seconds);
  while (sent < total) {
    due += (-Math.log(1 - Math.random()) * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) Atomics.wait(nap, 0, 0, wait);
    let burst = 1;
    while (sent + burst < total && due + 1000 / rate / 4 < performance.now()) {
      due += (-Math.log(1 - Math.random()) * 1000) / rate;
      burst++;
    }
    process.stdout.write(Buffer.alloc(burst, 1));
    sent += burst;
  }
  const left = start + seconds * 1000 - performance.now();
  if (left > 0) Atomics.wait(nap, 0, 0, left);
}

interface CommitResult {
  policy: string;
  rate: number;
  requests: number;
  /** This process's CPU per request, less what it spends in the same time without requests. */
  cpuUsPerRequest: number;
  commitsPerSecond: number;
  requestsPerCommit: number;
  p50Ms: number;
  p99Ms: number;
}

async function commits(
  name: string,
  policy: LingerPolicy,
  rate: number,
  seconds: number,
  idleUsPerSecond: number,
): Promise<CommitResult & { cpuUs: number; elapsed: number }> {
  const dir = mkdtempSync(join(arg('dir', tmpdir()), 'faultline-group-commit-'));
  try {
    const docs = DocStore.open(dir, policy);
    const doc = JSON.stringify({ filler: 'x'.repeat(6000) });
    const txnBefore = docs.lastTransactionId();
    const latency = new Samples();
    let requests = 0;
    let seq = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const child = spawn(process.execPath, [process.argv[1], '--child', String(rate), String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const inFlight: Promise<void>[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i++) {
        const at = performance.now();
        const id = `${Date.now().toString(36)}-${(seq++).toString(36).padStart(8, '0')}`;
        const put = docs
          .put([{ kind: 'events', key: ['live', 'p1', id], doc }], { kind: 'events', id, value: `{"items":[{"key":["live","p1","${id}"]}]}` })
          .then(() => {
            latency.add(performance.now() - at);
            requests++;
          });
        inFlight.push(put);
      }
    });
    await new Promise((resolve) => child.on('close', resolve));
    await Promise.all(inFlight);
    const elapsed = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const commitCount = docs.lastTransactionId() - txnBefore;
    await docs.close();
    const { p50, p99 } = latency.summary();
    return {
      policy: name,
      rate,
      requests,
      cpuUs: used.user + used.system,
      elapsed,
      cpuUsPerRequest: round((used.user + used.system - idleUsPerSecond * elapsed) / requests, 1),
      commitsPerSecond: round(commitCount / elapsed, 0),
      requestsPerCommit: round(requests / commitCount, 2),
      p50Ms: round(p50, 2),
      p99Ms: round(p99, 2),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The slim event rows the index loop appends (as eventIntake.slim leaves them). */
function slimEvents(count: number): Array<Accepted<ErrorEvent>> {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    tenant: { orgId: 'o1', dataset: 'live', projectId: `p${i % 4}` },
    data: eventIntake.slim({
      id: `0190${i.toString(16).padStart(28, '0')}`,
      project_id: `p${i % 4}`,
      timestamp: new Date(now - i).toISOString(),
      received_at: new Date(now).toISOString(),
      environment: 'production',
      release: `web@1.${i % 7}.0`,
      level: 'error',
      message: i % 3 ? undefined : `message ${i}`,
      user: i % 2 ? { id: `u${i % 1000}`, email: `u${i % 1000}@example.com` } : undefined,
      trace_id: 'a'.repeat(32),
      tags: { browser: 'Chrome', os: 'Linux', route: `/r/${i % 50}` },
      issue_id: `issue-${i % 200}`,
      grouping_hash: `h${i % 200}`,
      title: `TypeError: x is undefined ${i % 200}`,
      culprit: `app/handler.ts in handle${i % 200}`,
      exception: { type: 'TypeError', value: `x is undefined (${i})` },
      processing_errors: [],
    } as unknown as ErrorEvent),
  }));
}

/**
 * CPU per row of `events`, row by row (as the exporter appends) and in column batches, each into a
 * transaction that is rolled back. Both ways' rows are compared first: they must be the same.
 */
async function rows(count: number): Promise<Array<{ way: string; cpuUsPerRow: number }>> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-column-batch-'));
  const db = await benchDatabase(dir, ['issues']);
  const docs = DocStore.open(dir);
  try {
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    const events = slimEvents(count);
    const ways: Record<string, (appender: DuckDBAppender) => void> = {
      'row by row': (appender) => {
        for (const event of events) {
          appendEventColumns(appender, event, '');
          appender.endRow();
        }
      },
      'column batches': (appender) => appendEventChunks(appender, events),
    };
    const appendThenRead = (fill: (appender: DuckDBAppender) => void) =>
      db.writeInOwnTransaction(async (connection) => {
        await connection.run('BEGIN TRANSACTION');
        const appender = await connection.createAppender('events');
        const before = process.cpuUsage();
        fill(appender);
        appender.flushSync();
        const used = process.cpuUsage(before);
        appender.closeSync();
        const stored = (await connection.runAndReadAll('SELECT * EXCLUDE (doc) FROM events ORDER BY id')).getRows();
        await connection.run('ROLLBACK');
        return { cpuUs: used.user + used.system, stored: JSON.stringify(stored, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) };
      });
    const cpu: Record<string, number[]> = {};
    let first: string | undefined;
    for (let round = 0; round < 4; round++) {
      for (const [way, fill] of Object.entries(ways)) {
        const { cpuUs, stored } = await appendThenRead(fill);
        first ??= stored;
        if (stored !== first) throw new Error(`${way} stored other rows than row by row`);
        if (round > 0) (cpu[way] ??= []).push(cpuUs / count);
      }
    }
    return Object.entries(cpu).map(([way, values]) => ({ way, cpuUsPerRow: round(values.sort((x, y) => x - y)[Math.floor(values.length / 2)], 2) }));
  } finally {
    await docs.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU per event of the index loop's DuckDB transaction (rows appended, issues folded, commit) by
 * how many events it carries: what the index linger (LINGER_MS, LINGER_ROWS in intake.ts) buys.
 */
async function indexBatches(sizes: number[], eventsPerSize: number): Promise<Array<{ size: number; cpuUsPerEvent: number; msPerCommit: number }>> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-index-batch-'));
  const db = await benchDatabase(dir, ['issues']);
  const docs = DocStore.open(dir);
  try {
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    const events = slimEvents(eventsPerSize);
    const results: Array<{ size: number; cpuUsPerEvent: number; msPerCommit: number }> = [];
    for (const size of sizes) {
      const before = process.cpuUsage();
      const started = performance.now();
      let commits = 0;
      for (let start = 0; start < events.length; start += size) {
        const batch = events.slice(start, start + size);
        await db.writeInOwnTransaction((connection) => eventIntake.index(connection, batch, false));
        commits++;
      }
      const used = process.cpuUsage(before);
      results.push({
        size,
        cpuUsPerEvent: round((used.user + used.system) / events.length, 1),
        msPerCommit: round((performance.now() - started) / commits, 2),
      });
    }
    return results;
  } finally {
    await db.write(async (connection) => closeAppenders(connection));
    await docs.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds', '4'));
  const rates = arg('rates', '100,500,1000,2000,4000').split(',').filter(Boolean).map(Number);
  const policies: Record<string, LingerPolicy> = {
    'linger 0': { ...DEFAULT_LINGER, lingerMs: 0 },
    'adaptive 1 ms': { ...DEFAULT_LINGER, lingerMs: 1 },
    [`adaptive ${DEFAULT_LINGER.lingerMs} ms*`]: DEFAULT_LINGER,
    [`always ${DEFAULT_LINGER.lingerMs} ms`]: { ...DEFAULT_LINGER, always: true },
  };
  console.log(`Commits: one ~6 KB document and a pending entry per request, Poisson arrivals, ${seconds} s per point (* the default)`);
  const idle = await commits('idle', DEFAULT_LINGER, 0, seconds, 0);
  const idleUsPerSecond = idle.cpuUs / idle.elapsed;
  console.log(`  idle: ${round(idleUsPerSecond / 1000, 1)} ms CPU per second (subtracted below)`);
  const results: CommitResult[] = [];
  for (const rate of rates) {
    for (const [name, policy] of Object.entries(policies)) {
      const result = await commits(name, policy, rate, seconds, idleUsPerSecond);
      results.push(result);
      console.log(
        `  ${String(rate).padStart(5)}/s  ${name.padEnd(14)} CPU ${String(result.cpuUsPerRequest).padStart(6)} µs/request  ` +
          `${String(result.commitsPerSecond).padStart(5)} commits/s (${result.requestsPerCommit} per commit)  latency p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms`,
      );
    }
  }
  const sizes = arg('index', '10,25,100,500,2000').split(',').filter(Boolean).map(Number);
  if (sizes.length) {
    const perSize = Number(arg('index-events', '4000'));
    console.log(`Index transactions: ${perSize} events per batch size (appends, issue fold, commit), process CPU incl. DuckDB's threads`);
    for (const { size, cpuUsPerEvent, msPerCommit } of await indexBatches(sizes, perSize))
      console.log(`  ${String(size).padStart(5)} events/commit  CPU ${cpuUsPerEvent} µs/event  ${msPerCommit} ms wall per commit`);
  }
  const count = Number(arg('rows', '20000'));
  if (count === 0) return;
  console.log(`Rows: ${count} slim events appended into events (CPU of the appends and the flush, median of 3 rounds, rolled back; both ways' rows compared)`);
  for (const { way, cpuUsPerRow } of await rows(count)) console.log(`  ${way.padEnd(15)} CPU ${cpuUsPerRow} µs/row`);
}
