// What lets monitors be decided on one node and followed on others (receivers/monitors/bus.ts),
// over real DuckDB files with a controllable clock: two nodes that decide the same missed run (a
// rebalance) record one check-in and one event id; a definition from another node starts the same
// clock everywhere, a newer one wins and a deletion sticks; a follower takes the decider's state.
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMonitorSchema } from '../../receivers/monitors/input.js';
import { Monitors, type MonitorTenant } from '../../receivers/monitors/monitors.js';
import { definitionChange, MONITOR_CHANGE, MonitorStore, monitorId, type Checkin, type Monitor } from '../../src/storage/monitors.js';
import type { ComponentChange } from '../../extensions/control-plane/control-journal.js';
import type { Database } from '../../extensions/duckdb/database.js';
import { migratedDatabase } from '../support/test-host.js';
import { tempDir } from '../support/service.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-27T10:00:30Z');
const tenant: MonitorTenant = { dataset: 'live', orgId: 'org', projectId: 'default' };

interface Node {
  db: Database;
  monitors: Monitors;
  events: Array<Record<string, unknown>>;
  published: Array<{ monitor: Monitor; checkins: Checkin[] }>;
}

describe('monitors decided on one node, followed on others', () => {
  const dirs: string[] = [];
  const nodes: Node[] = [];
  let now: number;

  const node = async (): Promise<Node> => {
    const dir = tempDir('faultline-monitors-roles-');
    dirs.push(dir);
    const db = await migratedDatabase(dir, []);
    const events: Node['events'] = [];
    const published: Node['published'] = [];
    const monitors = new Monitors({
      store: await MonitorStore.open(db),
      now: () => now,
      emit: async (_monitor, event) => {
        events.push(event);
        return 'issue-1';
      },
      resolveIssue: async () => undefined,
      probe: async () => ({ at: now, ok: true, status_code: 200, latency_ms: 1, error: null }),
      changed: async (monitor, rows) => {
        published.push({ monitor, checkins: rows.checkins });
      },
    });
    const created = { db, monitors, events, published };
    nodes.push(created);
    return created;
  };
  /** The control plane's record of a monitor as the node that changed it last defined it. */
  const definitionOf = (monitor: Monitor) => definitionChange(monitor, monitor.updated_at);
  const apply = (target: Node, change: ComponentChange) =>
    target.monitors.store.applyDefinition(change, (local, definition) => target.monitors.fromDefinition(local, definition, change.at));

  beforeEach(() => {
    now = T0;
  });
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('records a missed run decided on two nodes as one check-in id and one event id', async () => {
    const [a, b] = [await node(), await node()];
    const created = await a.monitors.create(
      tenant,
      createMonitorSchema.parse({ type: 'cron', slug: 'nightly', schedule: { type: 'crontab', value: '*/5 * * * *' } }),
    );
    await apply(b, definitionOf(created));
    expect(b.monitors.store.get('live', 'default', 'nightly')!.next_expected_at).toBe(created.next_expected_at);

    now = Date.parse('2026-11-27T10:06:30Z');
    await a.monitors.tick();
    await b.monitors.tick();
    expect(a.events).toHaveLength(1);
    expect(b.events.map((e) => e.id)).toEqual(a.events.map((e) => e.id));
    const missedOn = async (n: Node) => (await n.monitors.store.checkins(n.monitors.store.get('live', 'default', 'nightly')!, 10)).checkins.map((c) => c.id);
    expect(await missedOn(b)).toEqual(await missedOn(a));
    // The decision is published for the other nodes: the state and the missed check-in it wrote.
    expect(a.published).toMatchObject([{ monitor: { status: 'missed', issue_id: 'issue-1' }, checkins: [{ status: 'missed' }] }]);
  });

  it('applies a newer definition and a deletion from another node, and ignores what is older than either', async () => {
    const [a, b] = [await node(), await node()];
    const created = await a.monitors.create(
      tenant,
      createMonitorSchema.parse({ type: 'cron', slug: 'etl', schedule: { type: 'interval', value: 1, unit: 'hour' } }),
    );
    await apply(b, definitionOf(created));

    now += 10 * MINUTE;
    const paused = await a.monitors.update(created, { paused: true, name: 'ETL' });
    await apply(b, definitionOf(paused));
    await apply(b, definitionOf(created)); // older: changes nothing
    expect(b.monitors.store.get('live', 'default', 'etl')).toMatchObject({ paused: true, name: 'ETL' });

    now += 10 * MINUTE;
    const resumed = await a.monitors.update(a.monitors.store.get('live', 'default', 'etl')!, { paused: false });
    await apply(b, definitionOf(resumed));
    // The end of a pause starts the clock again from the change, on every node alike.
    expect(b.monitors.store.get('live', 'default', 'etl')!.next_expected_at).toBe(resumed.next_expected_at);
    expect(resumed.next_expected_at).toBe(now + 60 * MINUTE);

    now += MINUTE;
    await apply(b, { kind: 'component', type: MONITOR_CHANGE, id: monitorId(created), at: now });
    expect(b.monitors.store.get('live', 'default', 'etl')).toBeUndefined();
    await apply(b, definitionOf(resumed)); // from before the deletion: it stays deleted
    expect(b.monitors.store.get('live', 'default', 'etl')).toBeUndefined();
  });

  it("takes the deciding node's state and rows as they were published", async () => {
    const [a, b] = [await node(), await node()];
    const created = await a.monitors.create(
      tenant,
      createMonitorSchema.parse({ type: 'cron', slug: 'sync', schedule: { type: 'interval', value: 5, unit: 'minute' } }),
    );
    await apply(b, definitionOf(created));
    now += MINUTE;
    await a.monitors.checkIn(created, { status: 'error', check_in_id: 'run-1' });
    const [{ monitor, checkins }] = a.published;
    const follower = b.monitors.store.get('live', 'default', 'sync')!;
    await b.monitors.store.applyState(follower, monitor, checkins, []);
    await b.monitors.store.applyState(follower, monitor, checkins, []); // delivered again: the same
    expect(b.monitors.store.get('live', 'default', 'sync')).toMatchObject({ status: 'error', consecutive_failures: 1, issue_id: 'issue-1' });
    const followed = await b.monitors.store.checkins(b.monitors.store.get('live', 'default', 'sync')!, 10);
    expect(followed.checkins.map((c) => [c.id, c.status])).toEqual([['run-1', 'error']]);
  });
});
