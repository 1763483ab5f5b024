// The alerting outbox: firings (alert_firings) and one delivery per action of each
// (alert_deliveries), written in one transaction before any attempt is made, so a notification is
// sent at least once whatever happens to the process after. A firing's key says what it is about
// (rule, issue and transition, or rule, state and time); the table's primary key makes a second
// record of the same firing — a copy of the event, a retry, another process — a no-op.
import { createHash } from 'node:crypto';
import { INTEGER, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { AlertAction } from '../../src/records/alert-rule.js';
import type { AlertRules, StateChange } from './alert-rules.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';
import {
  applySharedDelivery,
  applySharedFiring,
  insertFiring,
  UNPLACED,
  type AlertDeliveryChange,
  type AlertFiringChange,
  type SharedDelivery,
  type SharedFiring,
} from './alert-sharing.js';

export type FiringState = 'firing' | 'resolved' | 'test' | 'assignment';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface NewFiring {
  key: string;
  ruleId: string;
  dataset: Dataset;
  projectId: string;
  state: FiringState;
  issueId?: string;
  firedAt: number;
  /** The notification's body (the webhook payload); Slack and log actions are made from it. */
  payload: Record<string, unknown>;
  actions: AlertAction[];
}

export interface Delivery {
  id: string;
  firing_key: string;
  rule_id: string;
  action_index: number;
  action: AlertAction;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  last_attempt_at: number | null;
  delivered_at: number | null;
}

export interface DueDelivery extends Delivery {
  payload: string;
  /** The firing's tenant: the delivery loop shares its room between projects. */
  dataset: Dataset;
  project_id: string;
  /** A shared firing's partition of the control-plane topic (null: this node's own to send). */
  shared_partition: number | null;
}

export interface FiringRecord {
  key: string;
  state: FiringState;
  issue_id: string | null;
  fired_at: number;
  deliveries: Array<Pick<Delivery, 'id' | 'status' | 'attempts' | 'last_error' | 'next_attempt_at' | 'delivered_at'> & { type: string }>;
}

/** A firing key from what the firing is about: the same inputs give the same key in any process. */
export function firingKey(...parts: Array<string | number>): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);
}

/** The state changes that stand: those tied to a firing count only when it was recorded now. */
function withRecordedFirings(states: StateChange[], recorded: string[]): StateChange[] {
  return states.filter((change) => change.firingKey === undefined || recorded.includes(change.firingKey));
}

const micros = (ms: number) => BigInt(Math.round(ms)) * 1000n;
/** A delivery this node may send: its firing is its own to send, or shared in a partition it owns (`$owned` NULL: every one). */
const OWNED = '(f.shared_partition IS NULL OR $owned IS NULL OR list_contains($owned, f.shared_partition))';
const ownedParams = (owned: number[] | undefined) => ({ owned: owned === undefined ? null : listValue(owned) });

/** A firing as it is stored and shared. */
function sharedFiring(firing: NewFiring): SharedFiring {
  return {
    key: firing.key,
    rule_id: firing.ruleId,
    dataset: firing.dataset,
    project_id: firing.projectId,
    state: firing.state,
    issue_id: firing.issueId ?? null,
    fired_at: firing.firedAt,
    payload: JSON.stringify(firing.payload),
    actions: firing.actions,
  };
}
const DELIVERY_COLUMNS = `d.id, d.firing_key, d.rule_id, d.action_index, d.action, d.status, d.attempts, epoch_ms(d.next_attempt_at) AS next_attempt_at,
  d.last_error, epoch_ms(d.last_attempt_at) AS last_attempt_at, epoch_ms(d.delivered_at) AS delivered_at`;

export class AlertOutbox {
  constructor(
    private readonly db: Database,
    private readonly rules: AlertRules,
  ) {}

  /**
   * Records firings (each once: a key already recorded is skipped) with their deliveries, and the
   * rules' state changes, in one transaction. Resolves with the keys newly recorded. `share`
   * (a control plane runs): each new firing is also a record for every node (alert-sharing.ts),
   * and is sent by the worker its partition of the topic belongs to, not necessarily this one.
   */
  async record(firings: NewFiring[], states: StateChange[] = [], options: { share?: boolean } = {}): Promise<string[]> {
    const unique = [...new Map(firings.map((f) => [f.key, f])).values()];
    if (unique.length === 0 && states.length === 0) return [];
    const now = Date.now();
    const recorded = await this.db.write(async (c) => {
      const keys: string[] = [];
      for (const firing of unique) {
        const shared = sharedFiring(firing);
        if (!(await insertFiring(c, shared, options.share ? UNPLACED : null, now))) continue;
        keys.push(firing.key);
        if (options.share) await this.db.recordChange(c, { kind: 'alert_firing', firing: shared });
      }
      const applied = withRecordedFirings(states, keys);
      await this.rules.writeStates(c, applied);
      return { keys, applied };
    });
    this.rules.applyStates(recorded.applied);
    return recorded.keys;
  }

  /**
   * Pending deliveries whose next attempt is due, oldest first, with their firing's payload and
   * tenant; `held` (ids the delivery loop already has) are left out. `owned` (a control plane
   * runs): shared firings only of those partitions, besides the firings this node sends itself.
   */
  async due(now: number, limit: number, held: string[] = [], owned?: number[]): Promise<DueDelivery[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT ${DELIVERY_COLUMNS}, f.payload, f.dataset, f.project_id, f.shared_partition FROM alert_deliveries d JOIN alert_firings f ON f.key = d.firing_key
         WHERE d.status = 'pending' AND d.next_attempt_at <= make_timestamp($now::BIGINT) AND NOT list_contains($held, d.id) AND ${OWNED}
         ORDER BY d.next_attempt_at LIMIT $limit`,
      { now: micros(now), limit, held: listValue(held), ...ownedParams(owned) },
      { held: LIST(VARCHAR), owned: LIST(INTEGER) },
    );
    return rows<Record<string, unknown>>(result).map((row) => ({
      ...(row as unknown as DueDelivery),
      action: JSON.parse(row.action as string) as AlertAction,
    }));
  }

  /** When the earliest pending delivery not in `held` is due (epoch ms), if any is, and how many are pending in all (of `owned`, as in due). */
  async nextDue(held: string[] = [], owned?: number[]): Promise<{ at: number | null; pending: number }> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT epoch_ms(min(d.next_attempt_at) FILTER (WHERE NOT list_contains($held, d.id))), count(*)
         FROM alert_deliveries d JOIN alert_firings f ON f.key = d.firing_key WHERE d.status = 'pending' AND ${OWNED}`,
      { held: listValue(held), ...ownedParams(owned) },
      { held: LIST(VARCHAR), owned: LIST(INTEGER) },
    );
    const [at, pending] = result.getRows()[0];
    return { at: at === null ? null : Number(at), pending: Number(pending) };
  }

  /** A delivery's outcome; that of a shared firing also goes to every node (alert-sharing.ts), in the same transaction. */
  async settle(id: string, outcome: { status: DeliveryStatus; attempts: number; at: number; error?: string; nextAttemptAt?: number }): Promise<void> {
    await this.db.write(async (c) => {
      const updated = rows<Omit<SharedDelivery, 'action'> & { action: string }>(
        await c.runAndReadAll(
          `UPDATE alert_deliveries SET status = $status, attempts = $attempts, last_error = coalesce($error, last_error), last_attempt_at = make_timestamp($at::BIGINT),
             next_attempt_at = make_timestamp($next::BIGINT), delivered_at = ${outcome.status === 'delivered' ? 'make_timestamp($at::BIGINT)' : 'NULL'} WHERE id = $id
           RETURNING id, firing_key, rule_id, action_index, action, status, attempts, last_error, epoch_ms(last_attempt_at) AS last_attempt_at,
             epoch_ms(next_attempt_at) AS next_attempt_at, epoch_ms(delivered_at) AS delivered_at`,
          {
            id,
            status: outcome.status,
            attempts: outcome.attempts,
            error: outcome.error ?? null,
            at: micros(outcome.at),
            next: micros(outcome.nextAttemptAt ?? outcome.at),
          },
        ),
      );
      const row = updated[0];
      if (!row) return;
      const shared = await c.runAndReadAll('SELECT 1 FROM alert_firings WHERE key = $key AND shared_partition IS NOT NULL', { key: row.firing_key });
      if (shared.getRows().length === 0) return;
      const delivery: SharedDelivery = { ...row, action: JSON.parse(row.action) as AlertAction };
      await this.db.recordChange(c, { kind: 'alert_delivery', delivery });
    });
  }

  /** A shared firing from the control plane's topic, in `partition` of it (alert-sharing.ts). */
  async applyShared(change: AlertFiringChange | AlertDeliveryChange, partition: number): Promise<void> {
    const now = Date.now();
    await this.db.write((c) =>
      change.kind === 'alert_firing' ? applySharedFiring(c, change.firing, partition, now) : applySharedDelivery(c, change.delivery, now),
    );
  }

  /** When a rule last notified a firing about an issue (epoch ms), if it did. */
  /**
   * Deletes the firings dated before `firstKept` (`YYYY-MM-DD`) whose deliveries are all settled,
   * with their deliveries: a pending delivery keeps its firing however old it is.
   */
  async expire(firstKept: string): Promise<{ firings: number; deliveries: number }> {
    return this.db.write(async (c) => {
      const old = `SELECT key FROM alert_firings f WHERE f.fired_at < $cutoff::DATE
        AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.firing_key = f.key AND d.status = 'pending')`;
      const deliveries = await c.run(`DELETE FROM alert_deliveries WHERE firing_key IN (${old})`, { cutoff: firstKept });
      const firings = await c.run(`DELETE FROM alert_firings WHERE key IN (${old})`, { cutoff: firstKept });
      return { firings: Number(firings.rowsChanged), deliveries: Number(deliveries.rowsChanged) };
    });
  }

  async lastFiring(ruleId: string, issueId: string): Promise<number | null> {
    const result = await this.db
      .reader()
      .runAndReadAll(`SELECT epoch_ms(max(fired_at)) FROM alert_firings WHERE rule_id = $rule AND issue_id = $issue AND state = 'firing'`, {
        rule: ruleId,
        issue: issueId,
      });
    const at = result.getRows()[0]?.[0];
    return at === null || at === undefined ? null : Number(at);
  }

  /** A rule's most recent firings, newest first, each with its deliveries. */
  async recent(ruleId: string, limit = 20): Promise<FiringRecord[]> {
    const reader = this.db.reader();
    const firings = rows<{ key: string; state: FiringState; issue_id: string | null; fired_at: number }>(
      await reader.runAndReadAll(
        `SELECT key, state, issue_id, epoch_ms(fired_at) AS fired_at FROM alert_firings WHERE rule_id = $rule ORDER BY fired_at DESC, key LIMIT $limit`,
        { rule: ruleId, limit },
      ),
    );
    if (firings.length === 0) return [];
    const deliveries = rows<Record<string, unknown>>(
      await reader.runAndReadAll(
        `SELECT ${DELIVERY_COLUMNS} FROM alert_deliveries d WHERE list_contains($keys, d.firing_key) ORDER BY d.action_index`,
        { keys: listValue(firings.map((f) => f.key)) },
        { keys: LIST(VARCHAR) },
      ),
    );
    return firings.map((firing) => ({
      ...firing,
      deliveries: deliveries
        .filter((d) => d.firing_key === firing.key)
        .map((d) => ({
          id: d.id as string,
          type: (JSON.parse(d.action as string) as AlertAction).type,
          status: d.status as DeliveryStatus,
          attempts: d.attempts as number,
          last_error: d.last_error as string | null,
          next_attempt_at: d.next_attempt_at as number,
          delivered_at: d.delivered_at as number | null,
        })),
    }));
  }
}
