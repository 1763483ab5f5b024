// The parquet exporter's tables in the service's DuckDB file: per signal a staging table (what was
// acknowledged and not flushed yet: the commit is what makes the ack durable; batch_id is set when
// a flush takes the rows), and the flush and compaction journals. Each named instance has tables
// of its own (`parquet` → lake_*, `parquet/archive` → lake_archive_*).
import type { Migration } from '../../extensions/duckdb/migrate.js';
import { REPLAY_COLUMN_TYPES } from '../../src/records/replay-row.js';
import type { LakeSignal } from './lake.js';

export interface LakeTables {
  staging: Record<LakeSignal, string>;
  flushes: string;
  compactions: string;
}

export function lakeTables(instanceName: string | undefined): LakeTables {
  const prefix = instanceName ? `lake_${instanceName.replace(/[^A-Za-z0-9_]/g, '_')}_` : 'lake_';
  return {
    staging: { events: `${prefix}staging_events`, traces: `${prefix}staging_spans`, replays: `${prefix}staging_replays` },
    flushes: `${prefix}flushes`,
    compactions: `${prefix}compactions`,
  };
}

export function parquetMigrations(tables: LakeTables, unnamed: boolean): Migration[] {
  return [
    {
      version: 1,
      // The unnamed instance's tables were made by migration 3 of the pre-owner list.
      legacy: unnamed ? 3 : undefined,
      name: 'staging tables, flush and compaction journals',
      sql: `
        CREATE TABLE ${tables.staging.events} (
          dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, id VARCHAR NOT NULL,
          timestamp TIMESTAMP NOT NULL, received_at TIMESTAMP NOT NULL, issue_id VARCHAR NOT NULL,
          environment VARCHAR NOT NULL, release VARCHAR NOT NULL, level VARCHAR NOT NULL,
          exception_type VARCHAR NOT NULL, exception_value VARCHAR NOT NULL, message VARCHAR,
          user_id VARCHAR, user_email VARCHAR, trace_id VARCHAR, replay_id VARCHAR, tags VARCHAR,
          doc VARCHAR NOT NULL, batch_id BIGINT
        );
        CREATE TABLE ${tables.staging.traces} (
          dataset VARCHAR NOT NULL, project_id VARCHAR NOT NULL, trace_id VARCHAR NOT NULL,
          span_id VARCHAR NOT NULL, parent_span_id VARCHAR NOT NULL, name VARCHAR NOT NULL,
          service_name VARCHAR NOT NULL, start_ns BIGINT NOT NULL, end_ns BIGINT NOT NULL,
          status VARCHAR NOT NULL, kind VARCHAR NOT NULL, received_at TIMESTAMP NOT NULL,
          doc VARCHAR NOT NULL, batch_id BIGINT
        );
        CREATE TABLE ${tables.flushes} (
          batch_id BIGINT PRIMARY KEY, signal VARCHAR NOT NULL, state VARCHAR NOT NULL,
          rows BIGINT NOT NULL, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP
        );
        CREATE TABLE ${tables.compactions} (
          id VARCHAR PRIMARY KEY, signal VARCHAR NOT NULL, partition_dir VARCHAR NOT NULL,
          inputs VARCHAR NOT NULL, output VARCHAR NOT NULL, state VARCHAR NOT NULL,
          started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP
        );
      `,
    },
    {
      version: 2,
      name: 'replay segments staging table',
      sql: `CREATE TABLE ${tables.staging.replays} (${REPLAY_COLUMN_TYPES}, batch_id BIGINT);`,
    },
  ];
}
