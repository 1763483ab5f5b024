// Alert rules as the shared control plane applies them (AlertRules.apply) on a real DuckDB file:
// last writer wins by updated_at, a deletion sticks against an older change and a restart, and an
// older change than this node holds answers the newer state for the control plane to publish again.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertRuleInput } from '../../src/records/alert-rule.js';
import { AlertRules, type AlertRule } from '../../extensions/alerts/alert-rules.js';
import type { AlertRuleChange } from '../../extensions/alerts/alert-rules.js';
import { type Database } from '../../extensions/duckdb/database.js';
import { tempDir } from '../support/service.js';
import { migratedDatabase } from '../support/test-host.js';

let dir: string;
let db: Database;
let here: AlertRules;

beforeAll(async () => {
  dir = tempDir('faultline-rules-');
  db = await migratedDatabase(dir, ['alerts']);
  here = new AlertRules(db);
  await here.load();
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (name: string, enabled = true): AlertRuleInput => ({
  project_id: 'web',
  name,
  type: 'new_issue',
  conditions: {},
  actions: [{ type: 'log' }],
  environment: null,
  enabled,
  frequency: '30m',
});

/** A rule as another node holds it, at `updated_at`. */
function remote(id: string, name: string, updatedAt: number, enabled = true): AlertRuleChange {
  const rule: Omit<AlertRule, 'last_evaluated_at' | 'last_value'> = {
    ...input(name, enabled),
    id,
    dataset: 'live',
    org_id: 'default',
    created_at: 1_000,
    updated_at: updatedAt,
    counting_since: 1_000,
    state: 'ok',
    state_changed_at: null,
    last_fired_at: null,
  };
  return { kind: 'alert_rule', rule };
}

describe('AlertRules.apply', () => {
  it('takes a newer definition, ignores an older one and answers what it holds instead', async () => {
    expect(await here.apply(remote('alr_a', 'first', 2_000))).toBeUndefined();
    expect(here.get('alr_a')).toMatchObject({ name: 'first', updated_at: 2_000 });
    expect(here.active('live', 'web')?.new_issue.map((r) => r.id)).toContain('alr_a');
    expect(await here.apply(remote('alr_a', 'muted', 3_000, false))).toBeUndefined();
    expect(here.get('alr_a')).toMatchObject({ name: 'muted', enabled: false });
    expect(here.active('live', 'web')?.new_issue.map((r) => r.id) ?? []).not.toContain('alr_a');
    const newer = await here.apply(remote('alr_a', 'stale', 2_500));
    expect(newer).toMatchObject({ kind: 'alert_rule', rule: { id: 'alr_a', name: 'muted', updated_at: 3_000 } });
    expect(here.get('alr_a')?.name).toBe('muted');
    // The same change again (a node's own record coming back) changes nothing and answers nothing.
    expect(await here.apply(remote('alr_a', 'muted', 3_000, false))).toBeUndefined();
  });

  it('keeps a deletion against an older change, also after a restart', async () => {
    const made = await here.create(input('to delete'), { dataset: 'live', orgId: 'default' }, 5_000);
    expect(await here.delete(made.id, 6_000)).toBe(true);
    const stale = remote(made.id, 'resurrected', 5_500);
    expect(await here.apply(stale)).toEqual({ kind: 'alert_rule', id: made.id, deleted: true, updated_at: 6_000 });
    expect(here.get(made.id)).toBeUndefined();
    const restarted = new AlertRules(db);
    await restarted.load();
    expect(restarted.get(made.id)).toBeUndefined();
    expect(await restarted.apply(stale)).toMatchObject({ deleted: true });
    // A change made after the deletion (on a node that had not seen it) wins.
    expect(await restarted.apply(remote(made.id, 'made again', 7_000))).toBeUndefined();
    expect(restarted.get(made.id)?.name).toBe('made again');
  });

  it('applies a deletion from elsewhere unless this node changed the rule later', async () => {
    expect(await here.apply({ kind: 'alert_rule', id: 'alr_a', deleted: true, updated_at: 2_900 })).toMatchObject({ rule: { id: 'alr_a' } });
    expect(here.get('alr_a')).toBeDefined();
    expect(await here.apply({ kind: 'alert_rule', id: 'alr_a', deleted: true, updated_at: 4_000 })).toBeUndefined();
    expect(here.get('alr_a')).toBeUndefined();
  });
});
