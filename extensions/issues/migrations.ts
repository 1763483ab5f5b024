// The issues extension's tables: issue states, grouping versions and issue aliases. Version numbers
// are global across the extensions' lists (they were one list before), never reused.
import type { Migration } from '../duckdb/index.js';

export const ISSUES_MIGRATIONS: readonly Migration[] = [
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
    version: 7,
    name: 'grouping versions and issue aliases',
    // Which grouping algorithm each project's issues were formed with, and until when events fall
    // back to the previous one (src/storage/grouping-versions.ts). The projects that exist now
    // grouped with version 1. An alias sends the events of a new grouping hash to the issue that
    // the previous version had opened for them, for good.
    sql: `
      CREATE TABLE grouping_versions (
        project_id VARCHAR PRIMARY KEY, version INTEGER NOT NULL, fallback_version INTEGER, fallback_until TIMESTAMP,
        changed_at TIMESTAMP NOT NULL
      );
      INSERT INTO grouping_versions SELECT id, 1, NULL, NULL, now() FROM projects;
      CREATE TABLE issue_aliases (
        alias_id VARCHAR PRIMARY KEY, issue_id VARCHAR NOT NULL, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL
      );
    `,
  },
  {
    version: 8,
    name: 'the event that reopened an issue',
    // A retry of the event that reopened a resolved issue is that regression again (as a retry of
    // the event that opened it is `new`): its alerts are not lost when the first attempt failed
    // after the status was written.
    sql: `ALTER TABLE issue_states ADD COLUMN regressed_by VARCHAR;`,
  },
];
