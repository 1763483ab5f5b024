// Shared firings and issue openings as the control plane applies them (issue #31), on real DuckDB
// files, two nodes: a shared firing is sent only by the owner of its partition, a delivery's
// outcome goes out with it and only moves forward wherever it is applied (also before its firing),
// and an issue opened on another node is known here, its earliest opening kept.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { AlertRules } from '../../extensions/alerts/alert-rules.js';
import { AlertOutbox, firingKey, type NewFiring } from '../../extensions/alerts/alert-outbox.js';
import type { AlertDeliveryChange, AlertFiringChange } from '../../extensions/alerts/alert-sharing.js';
import type { Database } from '../../extensions/duckdb/database.js';
import type { JournalChange } from '../../extensions/duckdb/journal.js';
import type { ControlChange } from '../../extensions/control-plane/index.js';
import { IssueStates, type IssueOpenedChange } from '../../extensions/issues/issue-states.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

interface Node {
  db: Database;
  outbox: AlertOutbox;
  issues: IssueStates;
  /** What the node handed its journal (the control plane's outbox). */
  changes: ControlChange[];
}

const dirs: string[] = [];
let here: Node;
let there: Node;

async function node(): Promise<Node> {
  const dir = tempDir('faultline-sharing-');
  dirs.push(dir);
  const db = await migratedDatabase(dir, ['alerts', 'issues']);
  const changes: ControlChange[] = [];
  db.journal = {
    // The stores hand over their own change types, which ControlChange unites.
    record: (_c: DuckDBConnection, change: JournalChange) => Promise.resolve(void changes.push(change as ControlChange)),
    committed: () => undefined,
  };
  return { db, outbox: new AlertOutbox(db, new AlertRules(db)), issues: new IssueStates(db), changes };
}

beforeAll(async () => {
  here = await node();
  there = await node();
});

afterAll(async () => {
  for (const n of [here, there]) await n.db.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function firing(issueId: string): NewFiring {
  const key = firingKey('alr_shared', issueId, 'new');
  return {
    key,
    ruleId: 'alr_shared',
    dataset: 'live',
    projectId: 'web',
    state: 'firing',
    issueId,
    firedAt: Date.now(),
    payload: { id: key, issue: { id: issueId } },
    actions: [{ type: 'webhook', url: 'https://hooks.example.com/a' }, { type: 'log' }],
  };
}

const later = () => Date.now() + 60_000;

describe('shared firings', () => {
  it('are recorded with a record for every node, and sent only by the owner of their partition once it came back', async () => {
    const f = firing('issue-1');
    expect(await here.outbox.record([f], [], { share: true })).toEqual([f.key]);
    const shared = here.changes.filter((c): c is AlertFiringChange => c.kind === 'alert_firing');
    expect(shared.map((c) => c.firing.key)).toEqual([f.key]);
    // Not sent by anyone here until its record comes back from the topic with its partition.
    expect(await here.outbox.due(later(), 10, [], [0, 1, 2, 3])).toEqual([]);
    await here.outbox.applyShared(shared[0], 2);
    expect(await here.outbox.due(later(), 10, [], [0, 1])).toEqual([]);
    expect((await here.outbox.due(later(), 10, [], [2])).map((d) => d.id)).toEqual([`${f.key}-0`, `${f.key}-1`]);
    expect(await here.outbox.nextDue([], [1])).toEqual({ at: null, pending: 0 });
    // A second record of the same firing (a survivor deciding it again) adds nothing.
    expect(await here.outbox.record([f], [], { share: true })).toEqual([]);
    expect(here.changes.filter((c) => c.kind === 'alert_firing')).toHaveLength(1);
  });

  it('share each delivery outcome, which another node applies forward only, before or after the firing', async () => {
    const f = firing('issue-2');
    await here.outbox.record([f], [], { share: true });
    const record = here.changes.filter((c): c is AlertFiringChange => c.kind === 'alert_firing').find((c) => c.firing.key === f.key)!;
    await here.outbox.applyShared(record, 1);
    await here.outbox.settle(`${f.key}-0`, { status: 'pending', attempts: 1, at: Date.now(), error: 'timeout', nextAttemptAt: Date.now() });
    await here.outbox.settle(`${f.key}-0`, { status: 'delivered', attempts: 2, at: Date.now() });
    const outcomes = here.changes.filter((c): c is AlertDeliveryChange => c.kind === 'alert_delivery' && c.delivery.firing_key === f.key);
    expect(outcomes.map((c) => [c.delivery.status, c.delivery.attempts])).toEqual([
      ['pending', 1],
      ['delivered', 2],
    ]);
    // The other node hears the outcome first (another partition), then the firing, then the older outcome again.
    await there.outbox.applyShared(outcomes[1], 3);
    await there.outbox.applyShared(record, 1);
    await there.outbox.applyShared(outcomes[0], 3);
    expect((await there.outbox.due(later(), 10, [], [1])).map((d) => d.id)).toEqual([`${f.key}-1`]);
    const [seen] = await there.outbox.recent('alr_shared', 10).then((all) => all.filter((r) => r.key === f.key));
    expect(seen.deliveries.map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 2],
      ['pending', 0],
    ]);
    // Nothing was shared by the node that only applied.
    expect(there.changes.filter((c) => c.kind === 'alert_delivery' || c.kind === 'alert_firing')).toEqual([]);
  });

  it('leave the firings of a node without a control plane to that node', async () => {
    const f = firing('issue-3');
    await there.outbox.record([f], []);
    expect((await there.outbox.due(later(), 10, [], [])).map((d) => d.firing_key)).toContain(f.key);
    await there.outbox.settle(`${f.key}-0`, { status: 'delivered', attempts: 1, at: Date.now() });
    expect(there.changes.filter((c) => c.kind === 'alert_delivery')).toEqual([]);
  });
});

describe('issue openings', () => {
  const observe = (n: Node, issueId: string, eventId: string) => n.issues.observe([{ dataset: 'live', projectId: 'web', issueId, eventId }]);

  it('replicate: the other node knows the issue, and a redelivery of its first event is new there too', async () => {
    expect(await observe(here, 'issue-a', 'event-1')).toEqual(['new']);
    const opened = here.changes.filter((c): c is IssueOpenedChange => c.kind === 'issue_opened' && c.id === 'issue-a');
    expect(opened).toEqual([{ kind: 'issue_opened', id: 'issue-a', dataset: 'live', project_id: 'web', opened_by: 'event-1', at: expect.any(Number) }]);
    await there.issues.applyOpened(opened[0]);
    expect(await observe(there, 'issue-a', 'event-2')).toEqual([undefined]);
    expect(await observe(there, 'issue-a', 'event-1')).toEqual(['new']);
  });

  it('keep the earliest opening on every node', async () => {
    expect(await observe(there, 'issue-b', 'event-late')).toEqual(['new']);
    await there.issues.applyOpened({ kind: 'issue_opened', id: 'issue-b', dataset: 'live', project_id: 'web', opened_by: 'event-early', at: 1_000 });
    expect(await observe(there, 'issue-b', 'event-late')).toEqual([undefined]);
    expect(await observe(there, 'issue-b', 'event-early')).toEqual(['new']);
    // The later opening arriving afterwards changes nothing.
    const late = there.changes.find((c): c is IssueOpenedChange => c.kind === 'issue_opened' && c.id === 'issue-b')!;
    await there.issues.applyOpened(late);
    expect(await observe(there, 'issue-b', 'event-early')).toEqual(['new']);
  });

  it('carry the event of a regression, so that its redelivery reopens the issue on any node', async () => {
    await here.issues.setStatus('live', 'web', 'issue-a', 'resolved');
    expect(await observe(here, 'issue-a', 'event-3')).toEqual(['regressed']);
    const status = here.changes.filter((c) => c.kind === 'issue_status').at(-1)!;
    expect(status).toMatchObject({ status: 'regressed', regressed_by: 'event-3' });
    await there.issues.applyStatus(status);
    expect(await observe(there, 'issue-a', 'event-3')).toEqual(['regressed']);
    expect(await observe(there, 'issue-a', 'event-4')).toEqual([undefined]);
  });
});
