// The catalog's tables: organizations, projects, API keys and issue states (the control plane).
import type { Migration } from './migrate.js';

export const CATALOG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    legacy: 1,
    name: 'organizations, projects and API keys',
    sql: `
      CREATE TABLE organizations (
        id VARCHAR PRIMARY KEY,
        name VARCHAR NOT NULL,
        default_project_id VARCHAR,
        created_at TIMESTAMP NOT NULL
      );
      CREATE TABLE projects (
        id VARCHAR PRIMARY KEY,
        org_id VARCHAR NOT NULL,
        slug VARCHAR NOT NULL,
        name VARCHAR NOT NULL,
        platform VARCHAR,
        public_key VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL
      );
      CREATE TABLE api_keys (
        id VARCHAR PRIMARY KEY,
        org_id VARCHAR NOT NULL,
        project_id VARCHAR,
        dataset VARCHAR NOT NULL,
        name VARCHAR,
        display_prefix VARCHAR NOT NULL,
        secret_hash VARCHAR NOT NULL UNIQUE,
        created_at TIMESTAMP NOT NULL,
        revoked_at TIMESTAMP
      );
    `,
  },
  {
    version: 2,
    legacy: 3,
    name: 'issue states',
    sql: `
      CREATE TABLE issue_states (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, status VARCHAR NOT NULL,
        status_changed_at TIMESTAMP NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'every issue has a state, with its project and the event that opened it',
    // The issues processor records each issue here when its first event arrives, so that "new"
    // and "regressed" are decided before export, by any process, whatever stores the events.
    sql: `
      ALTER TABLE issue_states ADD COLUMN project_id VARCHAR;
      ALTER TABLE issue_states ADD COLUMN opened_by VARCHAR;
      ALTER TABLE issue_states ADD COLUMN created_at TIMESTAMP;
      ALTER TABLE issue_states ALTER COLUMN status_changed_at DROP NOT NULL;
    `,
  },
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
