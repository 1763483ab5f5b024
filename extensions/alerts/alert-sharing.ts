// Firings shared between workers over the control plane (issue #31): with several workers, the
// firing of an issue rule is a record on the catalog topic (`alert_firing:<key>`) before the
// offsets of the events that caused it are committed, and each outcome of its deliveries is one
// too (`alert_delivery:<id>`). Every node applies both into its own outbox tables, so a worker
// that is lost takes no decided notification with it: the worker the delivery group gives the
// firing's partition next sends what is still pending, and knows what was already delivered.
//
// Applying is idempotent and moves forward only: a firing is inserted once (the first record of a
// key wins on every node, since one key's records are in one partition, in order), and a delivery's
// outcome replaces a pending one (or one with fewer attempts), never a final one.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dataset } from '../../src/engine/item.js';
import type { AlertAction } from '../../src/records/alert-rule.js';
import type { Delivery, FiringState } from './alert-outbox.js';

/** A firing as it travels: what the deciding worker recorded (its key fixes it, whoever decided it). */
export interface SharedFiring {
  key: string;
  rule_id: string;
  dataset: Dataset;
  project_id: string;
  state: FiringState;
  issue_id: string | null;
  /** Epoch ms. */
  fired_at: number;
  /** The notification's body, as stored. */
  payload: string;
  actions: AlertAction[];
}

/** A delivery's state after an attempt, as the delivering worker recorded it (times in epoch ms). */
export type SharedDelivery = Delivery;

export type AlertFiringChange = { kind: 'alert_firing'; firing: SharedFiring };
export type AlertDeliveryChange = { kind: 'alert_delivery'; delivery: SharedDelivery };

/** Marks a shared firing recorded here whose record has not come back from the topic: nobody here sends it yet. */
export const UNPLACED = -1;

const micros = (ms: number) => BigInt(Math.round(ms)) * 1000n;

/**
 * Inserts a firing with one pending delivery per action unless its key is known; resolves whether
 * it was new. `partition`: null for a firing this node delivers itself, else see UNPLACED.
 */
export async function insertFiring(c: DuckDBConnection, firing: SharedFiring, partition: number | null, now: number): Promise<boolean> {
  const inserted = await c.runAndReadAll(
    `INSERT INTO alert_firings (key, rule_id, dataset, project_id, state, issue_id, fired_at, payload, shared_partition)
     VALUES ($key, $rule, $dataset, $project, $state, $issue, make_timestamp($at::BIGINT), $payload, $partition) ON CONFLICT DO NOTHING RETURNING key`,
    {
      key: firing.key,
      rule: firing.rule_id,
      dataset: firing.dataset,
      project: firing.project_id,
      state: firing.state,
      issue: firing.issue_id,
      at: micros(firing.fired_at),
      payload: firing.payload,
      partition,
    },
  );
  if (inserted.getRows().length === 0) return false;
  for (const [index, action] of firing.actions.entries())
    await c.run(
      `INSERT INTO alert_deliveries (id, firing_key, rule_id, action_index, action, status, attempts, next_attempt_at, created_at)
       VALUES ($id, $key, $rule, $index, $action, 'pending', 0, make_timestamp($now::BIGINT), make_timestamp($now::BIGINT)) ON CONFLICT DO NOTHING`,
      { id: deliveryId(firing.key, index), key: firing.key, rule: firing.rule_id, index, action: JSON.stringify(action), now: micros(now) },
    );
  return true;
}

/**
 * A firing record from the topic, in `partition`: inserted if unknown; a firing this node recorded
 * itself learns its partition (and so who sends it).
 */
export async function applySharedFiring(c: DuckDBConnection, firing: SharedFiring, partition: number, now: number): Promise<void> {
  if (await insertFiring(c, firing, partition, now)) return;
  await c.run(`UPDATE alert_firings SET shared_partition = $partition WHERE key = $key AND shared_partition = ${UNPLACED}`, { key: firing.key, partition });
}

/**
 * A delivery outcome from the topic: it replaces a pending state with fewer attempts, or a pending
 * one with a final one; a final state stays. It may arrive before its firing (another partition),
 * so it carries the whole row and the firing's insert leaves it as it is.
 */
export async function applySharedDelivery(c: DuckDBConnection, d: SharedDelivery, now: number): Promise<void> {
  await c.run(
    `INSERT INTO alert_deliveries (id, firing_key, rule_id, action_index, action, status, attempts, next_attempt_at, last_error, last_attempt_at, delivered_at, created_at)
     VALUES ($id, $key, $rule, $index, $action, $status, $attempts, make_timestamp($next::BIGINT), $error,
       make_timestamp($last::BIGINT), make_timestamp($delivered::BIGINT), make_timestamp($now::BIGINT))
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at,
       last_error = excluded.last_error, last_attempt_at = excluded.last_attempt_at, delivered_at = excluded.delivered_at
     WHERE alert_deliveries.status = 'pending' AND (excluded.status <> 'pending' OR excluded.attempts > alert_deliveries.attempts)`,
    {
      id: d.id,
      key: d.firing_key,
      rule: d.rule_id,
      index: d.action_index,
      action: JSON.stringify(d.action),
      status: d.status,
      attempts: d.attempts,
      next: micros(d.next_attempt_at),
      error: d.last_error,
      last: d.last_attempt_at === null ? null : micros(d.last_attempt_at),
      delivered: d.delivered_at === null ? null : micros(d.delivered_at),
      now: micros(now),
    },
  );
}

/** The Idempotency-Key of a delivery: the same on every attempt, from every worker; different per action. */
export function deliveryId(key: string, actionIndex: number): string {
  return `${key}-${actionIndex}`;
}
