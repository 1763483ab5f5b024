// The issues processor's cost on the hot path, in process: CPU per event when every issue is
// cached (the steady state) and when each batch opens new issues (a catalog round trip per batch),
// against the same batches through no processor at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
    const processor = new IssuesProcessor('issues', new IssueStates(db));
    for (let i = 0; i < 200; i++) await processor.process([item(i, i)]);
    const cached = await measure((n) => processor.process([item(n % 200, n)]), options.seconds);
    const newIssues = await measure((n) => processor.process([item(1_000_000 + n, n)]), Math.min(options.seconds, 2));
    return { cached, newIssues };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
