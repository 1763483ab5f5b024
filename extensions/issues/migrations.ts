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
  {
    version: 14,
    name: 'issue assignees',
    // Who an issue is assigned to (src/storage/issue-triage.ts): a web user, with their email kept
    // beside the id so a node whose catalog lacks that user (the Kafka roles replicate assignments,
    // not users) still shows it. A row with a NULL user is an unassignment: its time still orders
    // replicated changes (last writer wins, like issue statuses).
    sql: `
      CREATE TABLE issue_assignees (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL,
        user_id VARCHAR, email VARCHAR, changed_at TIMESTAMP NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: 'issue merges and activity',
    // Merges move grouping ids (the issue id a grouping hash derives) between issues without
    // rewriting stored events: reads and the issues processor map each stored issue_id through
    // issue_redirects (extensions/issues/issue-redirects.ts). issue_activity is the issue's timeline
    // (extensions/issues/issue-activity.ts): comments, status changes, merges, regressions.
    sql: `
      CREATE TABLE issue_redirects (
        grouping_id VARCHAR NOT NULL, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, issue_id VARCHAR NOT NULL,
        previous_issue_id VARCHAR, changed_at BIGINT NOT NULL,
        PRIMARY KEY (dataset, grouping_id)
      );
      CREATE TABLE issue_activity (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, issue_id VARCHAR NOT NULL,
        kind VARCHAR NOT NULL, actor VARCHAR NOT NULL, data VARCHAR, at_ms BIGINT NOT NULL
      );
      CREATE INDEX issue_activity_issue ON issue_activity (issue_id);
    `,
  },
  {
    version: 17,
    name: 'ignore until: the condition under which an ignored issue returns',
    // One row per ignored issue that returns by itself: the condition as JSON, when it was set
    // (counts and minutes run from there), when it ends for time conditions (epoch ms), and the
    // progress of count and users conditions (events seen since, hashes of the distinct users).
    sql: `
      CREATE TABLE issue_ignores (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, condition VARCHAR NOT NULL,
        ignored_at BIGINT NOT NULL, deadline BIGINT, events BIGINT NOT NULL DEFAULT 0, users VARCHAR NOT NULL DEFAULT '[]'
      );
    `,
  },
];
