// Versioned schema migrations: each runs once, in order, recorded in schema_migrations.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DocKind, DocStore } from './docs.js';

interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A step SQL cannot do, run after `sql` in the same transaction. */
  run?: (connection: DuckDBConnection, docs: DocStore) => Promise<void>;
}

/** The columns of `events`, as migration 1 made them and migration 7 rebuilt them. Frozen. */
const EVENT_COLUMNS = `dataset VARCHAR NOT NULL,
  project_id VARCHAR NOT NULL,
  id VARCHAR NOT NULL,
  timestamp TIMESTAMP NOT NULL,
  received_at TIMESTAMP NOT NULL,
  issue_id VARCHAR NOT NULL,
  environment VARCHAR NOT NULL,
  release VARCHAR NOT NULL,
  level VARCHAR NOT NULL,
  exception_type VARCHAR NOT NULL,
  exception_value VARCHAR NOT NULL,
  message VARCHAR,
  user_id VARCHAR,
  user_email VARCHAR,
  trace_id VARCHAR,
  replay_id VARCHAR,
  tags VARCHAR,
  doc VARCHAR NOT NULL`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'catalog, events and issues',
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
      CREATE TABLE events (
        ${EVENT_COLUMNS},
        PRIMARY KEY (dataset, project_id, id)
      );
      CREATE TABLE issues (
        id VARCHAR PRIMARY KEY,
        dataset VARCHAR NOT NULL,
        project_id VARCHAR NOT NULL,
        grouping_hash VARCHAR NOT NULL,
        title VARCHAR NOT NULL,
        culprit VARCHAR NOT NULL,
        type VARCHAR NOT NULL,
        value VARCHAR NOT NULL,
        level VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        first_seen TIMESTAMP NOT NULL,
        last_seen TIMESTAMP NOT NULL,
        count BIGINT NOT NULL,
        first_release VARCHAR NOT NULL,
        last_release VARCHAR NOT NULL,
        status_changed_at TIMESTAMP
      );
    `,
  },
  {
    version: 2,
    name: 'spans',
    // No primary key: the trace_id index serves both reading one trace (an index scan instead of a
    // full scan, however many spans there are) and the duplicate check on ingest, which runs in
    // the single writer; a four-column unique index would cost memory and insert time for nothing.
    sql: `
      CREATE TABLE spans (
        dataset VARCHAR NOT NULL,
        project_id VARCHAR NOT NULL,
        trace_id VARCHAR NOT NULL,
        span_id VARCHAR NOT NULL,
        parent_span_id VARCHAR NOT NULL,
        name VARCHAR NOT NULL,
        service_name VARCHAR NOT NULL,
        start_ns BIGINT NOT NULL,
        end_ns BIGINT NOT NULL,
        status VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        received_at TIMESTAMP NOT NULL,
        doc VARCHAR NOT NULL
      );
      CREATE INDEX spans_trace_id ON spans (trace_id);
      CREATE INDEX events_trace_id ON events (trace_id);
    `,
  },
  {
    version: 3,
    name: 'parquet lake staging, flush and compaction journals, issue states',
    // Staging tables hold what the parquet exporter acknowledged but has not flushed yet: the
    // commit is what makes the ack durable. batch_id is set when a flush takes the rows.
    sql: `
      CREATE TABLE lake_staging_events (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, id VARCHAR NOT NULL,
        timestamp TIMESTAMP NOT NULL, received_at TIMESTAMP NOT NULL, issue_id VARCHAR NOT NULL,
        environment VARCHAR NOT NULL, release VARCHAR NOT NULL, level VARCHAR NOT NULL,
        exception_type VARCHAR NOT NULL, exception_value VARCHAR NOT NULL, message VARCHAR,
        user_id VARCHAR, user_email VARCHAR, trace_id VARCHAR, replay_id VARCHAR, tags VARCHAR,
        doc VARCHAR NOT NULL, batch_id BIGINT
      );
      CREATE TABLE lake_staging_spans (
        dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL,
        span_id VARCHAR NOT NULL, parent_span_id VARCHAR NOT NULL, name VARCHAR NOT NULL,
        service_name VARCHAR NOT NULL, start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL,
        status VARCHAR NOT NULL, kind VARCHAR NOT NULL, received_at TIMESTAMP NOT NULL,
        doc VARCHAR NOT NULL, batch_id BIGINT
      );
      CREATE TABLE lake_flushes (
        batch_id BIGINT PRIMARY KEY, signal VARCHAR NOT NULL, state VARCHAR NOT NULL,
        rows BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP
      );
      CREATE TABLE lake_compactions (
        id VARCHAR PRIMARY KEY, signal VARCHAR NOT NULL, partition_dir VARCHAR NOT NULL,
        inputs VARCHAR NOT NULL, output VARCHAR NOT NULL, state VARCHAR NOT NULL,
        started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP
      );
      CREATE TABLE issue_states (
        id VARCHAR PRIMARY KEY, dataset VARCHAR NOT NULL, status VARCHAR NOT NULL,
        status_changed_at TIMESTAMP NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'issue deltas',
    // The duckdb exporter appends each commit's per-issue changes here and folds them into issues
    // with one INSERT … SELECT … ON CONFLICT in the same transaction, so the table is empty
    // between commits: appending beats binding a dozen parameters per issue.
    sql: 'CREATE TABLE issue_deltas AS SELECT * FROM issues LIMIT 0;',
  },
  {
    version: 5,
    name: 'event documents move to the DocStore',
    // The duckdb exporter keeps documents in the DocStore and '' in the doc column (docs.ts).
    sql: '',
    run: (connection, docs) => moveDocuments(connection, docs, 'events', 'dataset, project_id, id'),
  },
  {
    version: 6,
    name: 'span documents move to the DocStore',
    sql: '',
    run: (connection, docs) => moveDocuments(connection, docs, 'spans', 'dataset, project_id, start_ns // 1000000, trace_id, span_id'),
  },
  {
    version: 7,
    name: 'events without a primary key',
    // The DocStore answers whether an event id is stored, and serves GET /v1/events/{id}: the
    // primary key's ART index only cost insert time and memory (about 100 bytes per event,
    // resident). DuckDB cannot drop a primary key, so the table is rebuilt.
    sql: `
      CREATE TABLE events_v7 (
        ${EVENT_COLUMNS}
      );
      INSERT INTO events_v7 SELECT * FROM events ORDER BY timestamp;
      DROP INDEX events_trace_id;
      DROP TABLE events;
      ALTER TABLE events_v7 RENAME TO events;
      CREATE INDEX events_trace_id ON events (trace_id);
    `,
  },
];

/** Puts the documents of a table's rows in the DocStore and empties their column, in batches. Puts
 * are idempotent, so a crash half-way leaves nothing to undo: the migration runs again. */
export async function moveDocuments(connection: DuckDBConnection, docs: DocStore, table: DocKind, keyColumns: string): Promise<void> {
  for (;;) {
    const rows = (await connection.runAndReadAll(`SELECT rowid, doc, ${keyColumns} FROM ${table} WHERE doc <> '' LIMIT 10000`)).getRows();
    if (rows.length === 0) return;
    // Numbers stay numbers (a span key's start), as the exporter writes them.
    await docs.put(rows.map(([, doc, ...key]) => ({ kind: table, key: key.map((part) => (typeof part === 'bigint' ? Number(part) : String(part))), doc: String(doc) })));
    await connection.run(`UPDATE ${table} SET doc = '' WHERE rowid IN (${rows.map((row) => String(row[0])).join(', ')})`);
  }
}

export async function migrate(connection: DuckDBConnection, docs: DocStore): Promise<void> {
  await connection.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)',
  );
  const applied = await connection.runAndReadAll('SELECT version FROM schema_migrations');
  const done = new Set(applied.getRowObjectsJS().map((row) => Number(row.version)));
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version)) continue;
    await connection.run('BEGIN TRANSACTION');
    try {
      if (migration.sql) await connection.run(migration.sql);
      await migration.run?.(connection, docs);
      await connection.run('INSERT INTO schema_migrations VALUES (?, ?, now())', [migration.version, migration.name]);
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
