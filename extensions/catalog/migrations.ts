// The catalog extension's tables: organizations, projects and their keys (API and DSN), web app
// users, their sessions and sign-in links, and what Sentry SDKs send beside events (attachments,
// release health, client reports) until an extension of their own takes those over. Version
// numbers are global across the extensions' lists (they were one list before), never reused.
import type { Migration } from '../duckdb/index.js';

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
    version: 16,
    name: "projects' data-scrubbing settings",
    // A project's `data_scrubbing` (PATCH /v1/projects/{id}) as JSON text: the options the
    // scrubbing processor applies over its YAML ones; NULL: the YAML's alone.
    sql: `ALTER TABLE projects ADD COLUMN data_scrubbing VARCHAR;`,
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
