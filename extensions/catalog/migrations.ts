// The catalog's tables: organizations, projects, API keys, issue states, quarantine, uploaded
// artifacts, alert rules with their firings and deliveries, and grouping versions (the control plane).
import type { Migration } from '../duckdb/migrate.js';

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
  {
    version: 5,
    name: 'artifact bundles and files',
    // Uploaded source maps and symbol files (src/storage/artifacts.ts): one bundle per upload, its
    // files' metadata (their bytes are stored by sha256 under service.artifacts.path). A file
    // repeats its bundle's dataset, project, release and dist, so that symbolication's two
    // lookups — by debug id, and by release, dist and name — each read one table through an index.
    sql: `
      CREATE TABLE artifact_bundles (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, dist VARCHAR,
        created_at TIMESTAMP NOT NULL, upload_digest VARCHAR NOT NULL
      );
      CREATE INDEX artifact_bundles_by_project ON artifact_bundles (dataset, project_id, created_at);
      CREATE INDEX artifact_bundles_by_digest ON artifact_bundles (upload_digest);
      CREATE TABLE artifact_files (
        bundle_id VARCHAR NOT NULL, name VARCHAR NOT NULL, type VARCHAR NOT NULL, size BIGINT NOT NULL, sha256 VARCHAR NOT NULL,
        debug_id VARCHAR, source_mapping_url VARCHAR,
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, dist VARCHAR,
        PRIMARY KEY (bundle_id, name)
      );
      CREATE INDEX artifact_files_by_debug_id ON artifact_files (dataset, project_id, debug_id);
      CREATE INDEX artifact_files_by_name ON artifact_files (dataset, project_id, release, dist, name);
      CREATE INDEX artifact_files_by_sha256 ON artifact_files (sha256);
    `,
  },
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
    version: 9,
    name: 'ingest ids, allowed origins, DSN keys, event attachments and release health',
    // Sentry SDKs accept only a number as the DSN's project part: every project gets a stable
    // numeric ingest id (in creation order), used in its DSN and the /api/{ingest_id}/ routes,
    // while /v1 keeps the project's own id. DSN keys are api_keys of kind 'dsn' whose public key
    // is kept in the clear (it is in every browser bundle); the key each project had is moved over.
    // Attachments sent with events are listed on the event (their bytes are stored by sha256), and
    // sessions are counted per release for release health.
    sql: `
      ALTER TABLE projects ADD COLUMN ingest_id BIGINT;
      ALTER TABLE projects ADD COLUMN allowed_origins VARCHAR;
      UPDATE projects SET ingest_id = numbered.n
        FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM projects) AS numbered
        WHERE projects.id = numbered.id;
      ALTER TABLE api_keys ADD COLUMN kind VARCHAR DEFAULT 'api';
      ALTER TABLE api_keys ADD COLUMN public_key VARCHAR;
      UPDATE api_keys SET kind = 'api';
      INSERT INTO api_keys (id, org_id, project_id, dataset, name, display_prefix, secret_hash, created_at, revoked_at, kind, public_key)
        SELECT 'key_dsn_' || id, org_id, id, 'live', 'default DSN key', left(public_key, 12) || '…', 'dsn:' || public_key, created_at, NULL, 'dsn', public_key
        FROM projects;
      CREATE TABLE event_attachments (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, event_id VARCHAR NOT NULL, name VARCHAR NOT NULL,
        content_type VARCHAR, attachment_type VARCHAR, size BIGINT NOT NULL, sha256 VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL,
        PRIMARY KEY (dataset, project_id, event_id, name)
      );
      CREATE TABLE release_sessions (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, environment VARCHAR NOT NULL,
        sessions BIGINT NOT NULL, crashed BIGINT NOT NULL, errored BIGINT NOT NULL, abnormal BIGINT NOT NULL, last_seen_at TIMESTAMP NOT NULL,
        PRIMARY KEY (dataset, project_id, release, environment)
      );
    `,
  },
  {
    version: 10,
    name: 'web app users and sessions',
    // People who sign in to the web app (src/storage/users.ts): a password hashed with scrypt, a
    // role (admin or member). Sessions are kept here, not in the cookie, so signing out or
    // revoking ends them at once; the cookie carries a random token whose SHA-256 is the key.
    sql: `
      CREATE TABLE web_users (
        id VARCHAR PRIMARY KEY, org_id VARCHAR NOT NULL, email VARCHAR NOT NULL UNIQUE, role VARCHAR NOT NULL,
        password_hash VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, disabled_at TIMESTAMP
      );
      CREATE TABLE web_sessions (
        token_hash VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, csrf VARCHAR NOT NULL, dataset VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP
      );
    `,
  },
  {
    version: 11,
    name: 'attachments expire with their event; client reports per project',
    // An attachment keeps its event's timestamp, so retention removes it (row and bytes) on the
    // day the event goes; the rows that existed take their time of receipt. Client reports (what
    // Sentry SDKs discarded before sending, and why) are counted per project for its telemetry.
    sql: `
      ALTER TABLE event_attachments ADD COLUMN event_at TIMESTAMP;
      UPDATE event_attachments SET event_at = created_at;
      CREATE TABLE client_reports (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, reason VARCHAR NOT NULL, category VARCHAR NOT NULL,
        quantity BIGINT NOT NULL, last_seen_at TIMESTAMP NOT NULL,
        PRIMARY KEY (dataset, project_id, reason, category)
      );
    `,
  },
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
  {
    version: 13,
    name: 'one-time sign-in links',
    // An admin's invitation or password reset: the link's token is shown once and kept only as its
    // SHA-256; it sets a password once (used_at) before it expires.
    sql: `
      CREATE TABLE web_signin_links (
        token_hash VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL, purpose VARCHAR NOT NULL,
        created_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL, used_at TIMESTAMP
      );
    `,
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
    // issue_redirects (extensions/issues/issue-redirects.ts). issue_activity is the timeline
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
    version: 16,
    name: "projects' data-scrubbing settings",
    // A project's `data_scrubbing` (PATCH /v1/projects/{id}) as JSON text: the options the
    // scrubbing processor applies over its YAML ones; NULL: the YAML's alone.
    sql: `ALTER TABLE projects ADD COLUMN data_scrubbing VARCHAR;`,
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
  {
    version: 18,
    name: 'release health per user',
    // Crash-free users: each distinct id (the session's `did` from the SDK, stored as its SHA-256) once per
    // release and environment, with whether any of its sessions crashed.
    sql: `
      CREATE TABLE release_session_users (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, release VARCHAR NOT NULL, environment VARCHAR NOT NULL,
        user_hash VARCHAR NOT NULL, crashed BOOLEAN NOT NULL, last_seen_at TIMESTAMP NOT NULL,
        PRIMARY KEY (dataset, project_id, release, environment, user_hash)
      );
    `,
  },
];
