// The alerts extension's tables: rules, firings and deliveries. Version numbers are global across
// the extensions' lists.
import type { Migration } from '../duckdb/index.js';

export const ALERTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 6,
    name: 'alert rules, firings and deliveries',
    // Alert rules (src/storage/alert-rules.ts) with the state the alerting processor keeps of them,
    // and its outbox (src/storage/alert-outbox.ts): a firing is keyed by what it is about (rule,
    // issue, transition — or rule, state and evaluation time), so copies of one event, a restart or
    // a second process record it once; its deliveries are written with it, before any attempt.
    sql: `
      CREATE TABLE alert_rules (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, org_id VARCHAR NOT NULL, project_id VARCHAR NOT NULL,
        name VARCHAR NOT NULL, type VARCHAR NOT NULL, environment VARCHAR, enabled BOOLEAN NOT NULL, frequency VARCHAR NOT NULL,
        conditions VARCHAR NOT NULL, actions VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL,
        counting_since TIMESTAMP NOT NULL, state VARCHAR NOT NULL, state_changed_at TIMESTAMP, last_fired_at TIMESTAMP
      );
      CREATE TABLE alert_firings (
        key VARCHAR PRIMARY KEY, rule_id VARCHAR NOT NULL, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL,
        state VARCHAR NOT NULL, issue_id VARCHAR, fired_at TIMESTAMP NOT NULL, payload VARCHAR NOT NULL
      );
      CREATE INDEX alert_firings_by_rule ON alert_firings (rule_id, fired_at);
      CREATE TABLE alert_deliveries (
        id VARCHAR PRIMARY KEY, firing_key VARCHAR NOT NULL, rule_id VARCHAR NOT NULL, action_index INTEGER NOT NULL,
        action VARCHAR NOT NULL, status VARCHAR NOT NULL, attempts INTEGER NOT NULL, next_attempt_at TIMESTAMP NOT NULL,
        last_error VARCHAR, last_attempt_at TIMESTAMP, delivered_at TIMESTAMP, created_at TIMESTAMP NOT NULL
      );
    `,
  },
  {
    version: 19,
    name: 'shared firings: the control-plane partition of a firing its delivering worker owns',
    // With a control plane, the firings of issue rules are shared records on the catalog topic
    // (alert-sharing.ts): NULL for a firing this node delivers itself (as before), -1 for a shared
    // firing this node recorded and has not seen come back from the topic yet, else the topic's
    // partition its record is in. Only the worker the delivery group gives that partition sends it.
    sql: `ALTER TABLE alert_firings ADD COLUMN shared_partition INTEGER;`,
  },
];
