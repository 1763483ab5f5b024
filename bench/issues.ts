// The issues processor's cost on the hot path, in process: CPU per event when every issue is
// cached (the steady state) and when each batch opens new issues (a catalog round trip per batch),
// against the same batches through no processor at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import { join } from 'node:path';
import { IssuesProcessor } from '../processors/issues/processor.js';
import type { Item } from '../src/engine/item.js';
import type { ErrorEvent } from '../src/records/event.js';
import { IssueStates } from '../extensions/issues/issue-states.js';
import { benchDatabase } from './extensions.js';

export interface IssuesResult {
  /** 200 known issues, one event per process() call. */
  cached: { eventsPerSecond: number; cpuMicrosPerEvent: number };
  /** Every event opens an issue (batches of 1): the worst case, a catalog write each. */
  newIssues: { eventsPerSecond: number; cpuMicrosPerEvent: number };
  /** 200 issues ignored with `ignore_until: {users: …}`, one event (a new user each) per call: the counting, progress stored once a second. */
  ignoredCounting: { eventsPerSecond: number; cpuMicrosPerEvent: number };
  /** As `cached`, with 100 of the 200 issues merged into others: events routed through the redirects (issue #26). */
  merged?: { eventsPerSecond: number; cpuMicrosPerEvent: number };
}

function item(issue: number, id: number): Item<ErrorEvent> {
  return {
    tenant: { orgId: 'default', projectId: 'default', dataset: 'live' },
    receivedAt: Date.now(),
    size: 6000,
    data: { id: `e${id}`, issue_id: `i${issue}` } as ErrorEvent,
  };
}

async function measure(run: (n: number) => Promise<void>, seconds: number): Promise<{ eventsPerSecond: number; cpuMicrosPerEvent: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) await run(n++);
  const cpu = process.cpuUsage(cpu0);
  return { eventsPerSecond: n / ((performance.now() - t0) / 1000), cpuMicrosPerEvent: (cpu.user + cpu.system) / n };
}

export async function measureIssues(options: { seconds: number }): Promise<IssuesResult> {
  const dir = mkdtempSync(join(tmpdir(), 'faultline-bench-issues-'));
  const db = await benchDatabase(dir, ['issues']);
  try {
    const states = new IssueStates(db);
    await states.ignores.load();
    const processor = new IssuesProcessor('issues', states, pino({ level: 'silent' }), 60_000);
    for (let i = 0; i < 200; i++) await processor.process([item(i, i)]);
    const cached = await measure((n) => processor.process([item(n % 200, n)]), options.seconds);
    const newIssues = await measure((n) => processor.process([item(1_000_000 + n, n)]), Math.min(options.seconds, 2));
    for (let i = 0; i < 200; i++) await states.setStatus('live', 'default', `i${i}`, 'ignored', Date.now(), { users: 10_000 });
    const ignoredCounting = await measure(
      (n) => processor.process([{ ...item(n % 200, n), data: { id: `e${n}`, issue_id: `i${n % 200}`, user: { id: `u${n}` } } as ErrorEvent }]),
      options.seconds,
    );
    // Half the known issues merged into the other half (a database of their own): every other event is routed to its target.
    const mergeDb = await benchDatabase(mkdtempSync(join(tmpdir(), 'faultline-bench-merges-')), ['issues']);
    let merged: { eventsPerSecond: number; cpuMicrosPerEvent: number };
    try {
      const mergeStates = new IssueStates(mergeDb);
      await mergeStates.ignores.load();
      const routed = new IssuesProcessor('issues', mergeStates, pino({ level: 'silent' }), 60_000);
      for (let i = 0; i < 200; i++) await routed.process([item(i, i)]);
      for (let i = 0; i < 100; i++) await mergeStates.redirects.merge('live', 'default', `i${2 * i}`, [`i${2 * i + 1}`]);
      for (let i = 0; i < 200; i++) await routed.process([item(i, 2_000_000 + i)]);
      merged = await measure((n) => routed.process([item(n % 200, 3_000_000 + n)]), options.seconds);
    } finally {
      await mergeDb.close();
    }
    return { cached, newIssues, ignoredCounting, merged };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
