// The duckdb exporter's tables: events, issues (aggregates folded as events are indexed) and
// spans, with their rows' documents in the DocStore (docs.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Migration } from '../../extensions/duckdb/migrate.js';
import { REPLAY_COLUMN_TYPES } from '../../src/records/replay-row.js';
import { spanKey, type DocKey, type DocKind, type DocStore } from './docs.js';

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

export const DUCKDB_MIGRATIONS: readonly Migration<DocStore>[] = [
  {
    version: 1,
    legacy: 1,
    name: 'events and issues',
    sql: `
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
    legacy: 2,
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
    legacy: 4,
    name: 'issue deltas',
    // The duckdb exporter appends each commit's per-issue changes here and folds them into issues
    // with one INSERT … SELECT … ON CONFLICT in the same transaction, so the table is empty
    // between commits: appending beats binding a dozen parameters per issue.
    sql: 'CREATE TABLE issue_deltas AS SELECT * FROM issues LIMIT 0;',
  },
  {
    version: 4,
    legacy: 5,
    name: 'event documents move to the DocStore',
    // The duckdb exporter keeps documents in the DocStore and '' in the doc column (docs.ts).
    sql: '',
    run: (connection, docs) => moveDocuments(connection, docs, 'events', 'dataset, project_id, id'),
  },
  {
    version: 5,
    legacy: 6,
    name: 'span documents move to the DocStore',
    sql: '',
    run: moveSpanDocuments,
  },
  {
    version: 6,
    legacy: 7,
    name: 'events without a primary key',
    // The DocStore answers whether an event id is stored, and serves GET /v1/events/{id}: the
    // primary key's ART index only cost insert time and resident memory per event (figures:
    // bench/README.md). DuckDB cannot drop a primary key, so the table is rebuilt.
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
  {
    version: 7,
    name: 'issue statuses move to the catalog',
    // The issues processor decides new and regressed issues before export and keeps each issue's
    // status in the catalog's issue_states; this table keeps the aggregates (count, seen, releases).
    sql: `
      INSERT INTO issue_states (id, dataset, status, status_changed_at, project_id, opened_by, created_at)
        SELECT id, dataset, status, status_changed_at, project_id, NULL, first_seen FROM issues
        WHERE id NOT IN (SELECT id FROM issue_states);
      UPDATE issue_states SET project_id = i.project_id, created_at = i.first_seen FROM issues i
        WHERE issue_states.id = i.id AND issue_states.project_id IS NULL;
    `,
  },
  {
    version: 8,
    name: 'issues know when their last event was received',
    // So a resolved issue with an event received after its resolution reads as regressed, whether
    // or not an issues processor recorded the transition.
    sql: `
      ALTER TABLE issues ADD COLUMN last_received TIMESTAMP;
      ALTER TABLE issue_deltas ADD COLUMN last_received TIMESTAMP;
      UPDATE issues SET last_received = last_seen;
    `,
  },
  {
    version: 9,
    name: 'replay segments',
    // One row per segment (its metadata; the events are a compressed blob on disk). A replay is
    // the merge of its rows, read by replay id: hence the index.
    sql: `
      CREATE TABLE replay_segments (
        ${REPLAY_COLUMN_TYPES}
      );
      CREATE INDEX replay_segments_replay_id ON replay_segments (replay_id);
    `,
  },
];

/** The table whose rows' documents each kind holds. */
const TABLE_OF: Record<DocKind, string> = { events: 'events', traces: 'spans', replays: 'replay_segments', span_batches: 'spans' };

/** Puts the documents of a table's rows in the DocStore and empties their column, in batches. Puts
 * are idempotent, so a crash half-way leaves nothing to undo: the migration runs again. */
export async function moveDocuments(
  connection: DuckDBConnection,
  docs: DocStore,
  kind: DocKind,
  keyColumns: string,
  keyOf: (columns: unknown[]) => DocKey = (columns) => columns.map(String),
): Promise<void> {
  const table = TABLE_OF[kind];
  for (;;) {
    const rows = (await connection.runAndReadAll(`SELECT rowid, doc, ${keyColumns} FROM ${table} WHERE doc <> '' LIMIT 10000`)).getRows();
    if (rows.length === 0) return;
    await docs.put(rows.map(([, doc, ...columns]) => ({ kind, key: keyOf(columns), doc: String(doc) })));
    await connection.run(`UPDATE ${table} SET doc = '' WHERE rowid IN (${rows.map((row) => String(row[0])).join(', ')})`);
  }
}

/** Span documents in the rows of the spans table move to the DocStore, under the exporter's spanKey. */
export function moveSpanDocuments(connection: DuckDBConnection, docs: DocStore): Promise<void> {
  return moveDocuments(connection, docs, 'traces', 'dataset, project_id, start_ns, trace_id, span_id', ([dataset, project, start, trace, span]) =>
    spanKey(String(dataset), String(project), BigInt(start as bigint), String(trace), String(span)),
  );
}
