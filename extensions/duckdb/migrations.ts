// The duckdb extension's own tables: the change journal's outbox and deletion markers
// (journal.ts), which the stores write whether or not a control plane runs. Version numbers are
// global across the extensions' lists.
import type { Migration } from './migrate.js';

export const DATABASE_MIGRATIONS: readonly Migration[] = [
  {
    version: 12,
    name: 'the control plane outbox and deletion markers',
    // Changes to replicate over the shared control plane (src/kafka/control-plane.ts) are written
    // here in the transaction that makes them, sent to Kafka in seq order, and deleted once Kafka
    // acknowledged them: a change made while the broker is down survives the node's crash. Deleted
    // rows of replicated tables (alert rules, artifact bundles) leave a marker, so an older change
    // arriving after the deletion (from another node, or replayed from the topic) cannot bring one back.
    sql: `
      CREATE TABLE control_outbox (seq BIGINT PRIMARY KEY, key VARCHAR NOT NULL, value VARCHAR NOT NULL);
      CREATE TABLE control_tombstones (key VARCHAR PRIMARY KEY, deleted_at BIGINT NOT NULL);
    `,
  },
];
