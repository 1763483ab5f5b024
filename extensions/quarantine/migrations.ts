// The quarantine extension's table. Version numbers are global across the extensions' lists.
import type { Migration } from '../duckdb/index.js';

export const QUARANTINE_MIGRATIONS: readonly Migration[] = [
  {
    version: 4,
    name: 'quarantine',
    // Items acknowledged and then refused by a later stage (an exporter's index): kept here, with
    // the reason, instead of blocking the stage's queue or the next start.
    sql: `
      CREATE TABLE quarantine (
        component VARCHAR NOT NULL, signal VARCHAR NOT NULL, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL,
        item_key VARCHAR NOT NULL, reason VARCHAR NOT NULL, doc VARCHAR NOT NULL, quarantined_at TIMESTAMP NOT NULL
      );
    `,
  },
];
