// Alert rules in the catalog (alert_rules), held in memory as well: the alerting processor looks
// up the rules of an item's tenant on every item, which must cost a map lookup, not a query. The
// API changes rules through this store, so the processor sees a change at once.
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { AlertAction, AlertRuleInput, AlertState, AlertType } from '../../src/records/alert-rule.js';
import { deletedAt, markDeleted } from '../duckdb/journal.js';
import { decodeCursor, encodeCursor } from '../../src/http/cursor.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

export interface AlertRule extends AlertRuleInput {
  id: string;
  dataset: Dataset;
  org_id: string;
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
  /**
   * Epoch ms from which a counting rule (error_spike, latency) counts: its creation, or the last
   * change of its conditions. Windows rebuilt after a restart start there too, so they hold what
   * they held before it.
   */
  counting_since: number;
  state: AlertState;
  state_changed_at: number | null;
  last_fired_at: number | null;
  /** Kept in memory only: when the evaluator last looked at the rule, and what it measured. */
  last_evaluated_at: number | null;
  last_value: number | null;
}

/** The enabled rules of one tenant, by type: what the processor consults per item. */
export interface TenantRules {
  new_issue: AlertRule[];
  regression: AlertRule[];
  error_spike: AlertRule[];
  latency: AlertRule[];
}

export interface RuleFilter {
  dataset: Dataset;
  projectId: string;
  type?: AlertType;
  enabled?: boolean;
}

export interface StateChange {
  ruleId: string;
  state: AlertState;
  at: number;
  /** Set when a notification went out with the change. */
  fired: boolean;
  /** The firing the change goes with, when it counts only if that firing is newly recorded (not a copy's). */
  firingKey?: string;
}

const COLUMNS = `id, dataset, org_id, project_id, name, type, environment, enabled, frequency, conditions, actions,
  epoch_ms(created_at) AS created_at, epoch_ms(updated_at) AS updated_at, epoch_ms(counting_since) AS counting_since, state,
  epoch_ms(state_changed_at) AS state_changed_at, epoch_ms(last_fired_at) AS last_fired_at`;

const micros = (ms: number) => BigInt(Math.round(ms)) * 1000n;

/** An alert rule's full definition, or its deletion (`deleted`), at `updated_at` (epoch ms): what the control plane replicates. */
export type AlertRuleChange =
  { kind: 'alert_rule'; rule: Omit<AlertRule, 'last_evaluated_at' | 'last_value'> } | { kind: 'alert_rule'; id: string; deleted: true; updated_at: number };

/** The control plane's compaction key of a rule's change (its deletion marker's key too). */
export function alertRuleChangeKey(change: AlertRuleChange): string {
  return `alert_rule:${'rule' in change ? change.rule.id : change.id}`;
}

export class AlertRules {
  private readonly byId = new Map<string, AlertRule>();
  private readonly byTenant = new Map<string, TenantRules>();

  constructor(private readonly db: Database) {}

  /** Reads every rule into memory (at start). */
  async load(): Promise<void> {
    const result = await this.db.reader().runAndReadAll(`SELECT ${COLUMNS} FROM alert_rules`);
    this.byId.clear();
    for (const row of rows<Record<string, unknown>>(result)) {
      const rule: AlertRule = {
        ...(row as unknown as AlertRule),
        conditions: JSON.parse(row.conditions as string) as AlertRule['conditions'],
        actions: JSON.parse(row.actions as string) as AlertAction[],
        last_evaluated_at: null,
        last_value: null,
      };
      this.byId.set(rule.id, rule);
    }
    this.reindex();
  }

  /** The enabled rules of a tenant, or undefined when it has none: the processor's per-item lookup. */
  active(dataset: Dataset, projectId: string): TenantRules | undefined {
    return this.byTenant.get(`${dataset}\u0000${projectId}`);
  }

  /** Every enabled rule of a type, for the evaluator. */
  *enabled(type: AlertType): Iterable<AlertRule> {
    for (const rule of this.byId.values()) if (rule.enabled && rule.type === type) yield rule;
  }

  /** How many rules (enabled or not) a project has in a dataset. */
  count(dataset: Dataset, projectId: string): number {
    let n = 0;
    for (const rule of this.byId.values()) if (rule.dataset === dataset && rule.project_id === projectId) n++;
    return n;
  }

  get(id: string): AlertRule | undefined {
    return this.byId.get(id);
  }

  all(): AlertRule[] {
    return [...this.byId.values()].sort(newestFirst);
  }

  list(filter: RuleFilter, limit: number, cursor?: string): { rules: AlertRule[]; nextCursor: string | null } {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const matching = [...this.byId.values()]
      .filter(
        (rule) =>
          rule.dataset === filter.dataset &&
          rule.project_id === filter.projectId &&
          (filter.type === undefined || rule.type === filter.type) &&
          (filter.enabled === undefined || rule.enabled === filter.enabled),
      )
      .sort(newestFirst)
      .filter((rule) => !after || micros(rule.created_at) < after.micros || (micros(rule.created_at) === after.micros && rule.id < after.id));
    const page = matching.slice(0, limit);
    const last = page.at(-1);
    return { rules: page, nextCursor: matching.length > limit && last ? encodeCursor({ micros: micros(last.created_at), id: last.id }) : null };
  }

  async create(input: AlertRuleInput, tenant: { dataset: Dataset; orgId: string }, now = Date.now()): Promise<AlertRule> {
    const rule: AlertRule = {
      ...input,
      id: `alr_${randomBytes(12).toString('hex')}`,
      dataset: tenant.dataset,
      org_id: tenant.orgId,
      created_at: now,
      updated_at: now,
      counting_since: now,
      state: 'ok',
      state_changed_at: null,
      last_fired_at: null,
      last_evaluated_at: null,
      last_value: null,
    };
    await this.db.write(async (c) => {
      await c.run(
        `INSERT INTO alert_rules (id, dataset, org_id, project_id, name, type, environment, enabled, frequency, conditions, actions,
           created_at, updated_at, counting_since, state)
         VALUES ($id, $dataset, $org, $project, $name, $type, $environment, $enabled, $frequency, $conditions, $actions,
           make_timestamp($now::BIGINT), make_timestamp($now::BIGINT), make_timestamp($now::BIGINT), 'ok')`,
        { ...this.params(rule), id: rule.id, dataset: rule.dataset, org: rule.org_id, now: micros(now) },
      );
      await this.db.recordChange(c, ruleChange(rule));
    });
    this.byId.set(rule.id, rule);
    this.reindex();
    return rule;
  }

  /**
   * Replaces what a client sets. A change of type, conditions or environment, or unmuting it,
   * starts the rule's windows afresh and puts it back to `ok`: what it measured no longer applies
   * (a muted rule counts nothing).
   */
  async update(id: string, input: AlertRuleInput, now = Date.now()): Promise<AlertRule | undefined> {
    const old = this.byId.get(id);
    if (!old) return undefined;
    const recount =
      (!old.enabled && input.enabled) ||
      old.type !== input.type ||
      old.project_id !== input.project_id ||
      old.environment !== input.environment ||
      JSON.stringify(old.conditions) !== JSON.stringify(input.conditions);
    // Later than the last change, wherever it was made: the control plane replicates by updated_at.
    const rule: AlertRule = { ...old, ...input, updated_at: Math.max(now, old.updated_at + 1) };
    if (recount) Object.assign(rule, { counting_since: now, state: 'ok', state_changed_at: old.state === 'ok' ? old.state_changed_at : now, last_value: null });
    await this.db.write(async (c) => {
      await this.writeDefinition(c, rule);
      await this.db.recordChange(c, ruleChange(rule));
    });
    this.byId.set(id, rule);
    this.reindex();
    return rule;
  }

  async delete(id: string, now = Date.now()): Promise<boolean> {
    const old = this.byId.get(id);
    if (!old) return false;
    const at = Math.max(now, old.updated_at + 1);
    await this.db.write(async (c) => {
      await c.run('DELETE FROM alert_rules WHERE id = $id', { id });
      await markDeleted(c, `alert_rule:${id}`, at);
      await this.db.recordChange(c, { kind: 'alert_rule', id, deleted: true, updated_at: at });
    });
    this.byId.delete(id);
    this.reindex();
    return true;
  }

  /**
   * A rule's definition or deletion as another node made it (the shared control plane), applied
   * last-writer-wins by updated_at: a change older than what this node holds (the rule, or its
   * deletion) changes nothing and returns the newer state, for the control plane to publish again
   * so that it is what the compacted topic keeps. A rule's state (ok/firing) stays this node's.
   */
  async apply(change: AlertRuleChange): Promise<AlertRuleChange | undefined> {
    const key = alertRuleChangeKey(change);
    return this.db.write(async (c) => {
      const deleted = await deletedAt(c, key);
      if ('deleted' in change) {
        const held = this.byId.get(change.id);
        if (held && held.updated_at > change.updated_at) return ruleChange(held);
        if (deleted !== undefined && deleted >= change.updated_at) return undefined;
        await c.run('DELETE FROM alert_rules WHERE id = $id', { id: change.id });
        await markDeleted(c, key, change.updated_at);
        this.byId.delete(change.id);
        this.reindex();
        return undefined;
      }
      const incoming = change.rule;
      if (deleted !== undefined && deleted >= incoming.updated_at) return { kind: 'alert_rule', id: incoming.id, deleted: true, updated_at: deleted };
      const held = this.byId.get(incoming.id);
      if (held && held.updated_at >= incoming.updated_at) return held.updated_at > incoming.updated_at ? ruleChange(held) : undefined;
      const rule: AlertRule = held
        ? { ...held, ...incoming, state: held.state, state_changed_at: held.state_changed_at, last_fired_at: held.last_fired_at }
        : { ...incoming, last_evaluated_at: null, last_value: null };
      if (held && held.counting_since !== rule.counting_since) Object.assign(rule, { state: 'ok', last_value: null });
      if (held) await this.writeDefinition(c, rule);
      else
        await c.run(
          `INSERT INTO alert_rules (id, dataset, org_id, project_id, name, type, environment, enabled, frequency, conditions, actions,
             created_at, updated_at, counting_since, state, state_changed_at, last_fired_at)
           VALUES ($id, $dataset, $org, $project, $name, $type, $environment, $enabled, $frequency, $conditions, $actions,
             make_timestamp($created::BIGINT), make_timestamp($now::BIGINT), make_timestamp($since::BIGINT), $state, NULL, NULL)`,
          {
            ...this.params(rule),
            id: rule.id,
            dataset: rule.dataset,
            org: rule.org_id,
            created: micros(rule.created_at),
            now: micros(rule.updated_at),
            since: micros(rule.counting_since),
            state: rule.state,
          },
        );
      if (!held) Object.assign(rule, { state_changed_at: null, last_fired_at: null });
      this.byId.set(rule.id, rule);
      this.reindex();
      return undefined;
    });
  }

  private writeDefinition(c: DuckDBConnection, rule: AlertRule): Promise<unknown> {
    return c.run(
      `UPDATE alert_rules SET project_id = $project, name = $name, type = $type, environment = $environment, enabled = $enabled,
         frequency = $frequency, conditions = $conditions, actions = $actions, updated_at = make_timestamp($now::BIGINT),
         counting_since = make_timestamp($since::BIGINT), state = $state WHERE id = $id`,
      { ...this.params(rule), id: rule.id, now: micros(rule.updated_at), since: micros(rule.counting_since), state: rule.state },
    );
  }

  /** Writes state changes inside the caller's transaction (with the firings they go with). */
  async writeStates(c: DuckDBConnection, changes: StateChange[]): Promise<void> {
    for (const change of changes)
      await c.run(
        `UPDATE alert_rules SET state = $state, state_changed_at = CASE WHEN state = $state THEN state_changed_at ELSE make_timestamp($at::BIGINT) END
           ${change.fired ? ', last_fired_at = make_timestamp($at::BIGINT)' : ''} WHERE id = $id`,
        { id: change.ruleId, state: change.state, at: micros(change.at) },
      );
  }

  /** Applies committed state changes to the rules in memory. */
  applyStates(changes: StateChange[]): void {
    for (const change of changes) {
      const rule = this.byId.get(change.ruleId);
      if (!rule) continue;
      if (rule.state !== change.state) rule.state_changed_at = change.at;
      rule.state = change.state;
      if (change.fired) rule.last_fired_at = change.at;
    }
  }

  private params(rule: AlertRule) {
    return {
      project: rule.project_id,
      name: rule.name,
      type: rule.type,
      environment: rule.environment,
      enabled: rule.enabled,
      frequency: rule.frequency,
      conditions: JSON.stringify(rule.conditions),
      actions: JSON.stringify(rule.actions),
    };
  }

  private reindex(): void {
    this.byTenant.clear();
    for (const rule of this.byId.values()) {
      if (!rule.enabled) continue;
      const key = `${rule.dataset}\u0000${rule.project_id}`;
      let tenant = this.byTenant.get(key);
      if (!tenant) this.byTenant.set(key, (tenant = { new_issue: [], regression: [], error_spike: [], latency: [] }));
      tenant[rule.type].push(rule);
    }
  }
}

/** What the control plane carries of a rule: its definition, not what the evaluator measured. */
function ruleChange(rule: AlertRule): AlertRuleChange {
  const { last_evaluated_at: _evaluated, last_value: _value, ...definition } = rule;
  return { kind: 'alert_rule', rule: definition };
}

function newestFirst(a: AlertRule, b: AlertRule): number {
  return b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
