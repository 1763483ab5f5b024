// Per-owner migrations, and the bridge from the single schema_migrations list of databases written
// before owners existed.
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { DocStore } from '../../exporters/duckdb/docs.js';
import { DUCKDB_MIGRATIONS } from '../../exporters/duckdb/migrations.js';
import { lakeTables, parquetMigrations } from '../../exporters/parquet/migrations.js';
import type { Database } from '../../extensions/duckdb/database.js';
import { migrate } from '../../extensions/duckdb/migrate.js';
import { tempDir } from '../support/service.js';
import { EXTENSION_MIGRATIONS, extensionLedger } from '../support/migrations.js';
import { migratedDatabase } from '../support/test-host.js';

const EXTENSIONS = Object.keys(EXTENSION_MIGRATIONS);

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function applied(db: Database): Promise<string[]> {
  const rows = (await db.reader().runAndReadAll('SELECT owner, version FROM migrations ORDER BY owner, version')).getRows();
  return rows.map(([owner, version]) => `${owner}:${version}`);
}

describe('migrate', () => {
  it('runs each owner its own list once, and named parquet instances get tables of their own', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = await migratedDatabase(dir, ['issues']);
    const docs = DocStore.open(dir);
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs);
    await migrate(db, 'parquet', parquetMigrations(lakeTables(undefined), true), undefined);
    await migrate(db, 'parquet/archive', parquetMigrations(lakeTables('archive'), false), undefined);
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs); // again: nothing to do
    const tables = (await db.reader().runAndReadAll("SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lake_%' ORDER BY 1"))
      .getRows()
      .flat();
    expect(tables).toEqual([
      'lake_archive_compactions',
      'lake_archive_flushes',
      'lake_archive_staging_events',
      'lake_archive_staging_replays',
      'lake_archive_staging_spans',
      'lake_compactions',
      'lake_flushes',
      'lake_staging_events',
      'lake_staging_replays',
      'lake_staging_spans',
    ]);
    expect((await applied(db)).filter((m) => m.startsWith('duckdb:'))).toHaveLength(DUCKDB_MIGRATIONS.length);
    await docs.close();
    await db.close();
  });

  it('takes a database migrated by the old single list (versions 1-7) without running anything twice', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let db = await migratedDatabase(dir, EXTENSIONS);
    let docs = DocStore.open(dir);
    await migrate(
      db,
      'duckdb',
      DUCKDB_MIGRATIONS.filter((m) => m.legacy !== undefined),
      docs,
    );
    await migrate(
      db,
      'parquet',
      parquetMigrations(lakeTables(undefined), true).filter((m) => m.legacy !== undefined),
      undefined,
    );
    // As the old code left it: one list, no owners; the catalog's newest migration not applied.
    await db.write(async (c) => {
      await c.run('DROP TABLE migrations');
      await c.run('DROP TABLE quarantine');
      await c.run('DROP TABLE artifact_files');
      await c.run('DROP TABLE artifact_bundles');
      await c.run('DROP TABLE alert_deliveries');
      await c.run('DROP TABLE alert_firings');
      await c.run('DROP TABLE alert_rules');
      await c.run('DROP TABLE grouping_versions');
      await c.run('DROP TABLE issue_aliases');
      await c.run('DROP TABLE web_sessions');
      await c.run('DROP TABLE web_users');
      await c.run('DROP TABLE event_attachments');
      await c.run('DROP TABLE release_sessions');
      await c.run('DROP TABLE release_session_users');
      await c.run('DROP TABLE control_outbox');
      await c.run('DROP TABLE control_tombstones');
      await c.run('DROP TABLE client_reports');
      await c.run('DROP TABLE web_signin_links');
      await c.run('DROP TABLE issue_ignores');
      await c.run('DROP TABLE issue_assignees');
      await c.run('DROP TABLE issue_activity');
      await c.run('DROP TABLE issue_redirects');
      await c.run("DELETE FROM api_keys WHERE kind = 'dsn'");
      await c.run('ALTER TABLE api_keys DROP COLUMN kind');
      await c.run('ALTER TABLE api_keys DROP COLUMN public_key');
      await c.run('ALTER TABLE projects DROP COLUMN ingest_id');
      await c.run('ALTER TABLE projects DROP COLUMN allowed_origins');
      await c.run('ALTER TABLE projects DROP COLUMN data_scrubbing');
      await c.run(
        "INSERT INTO projects (id, org_id, slug, name, platform, public_key, created_at) VALUES ('default', 'org', 'default', 'Default', NULL, 'pk', now())",
      );
      await c.run('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)');
      await c.run("INSERT INTO schema_migrations SELECT i, 'old', now() FROM range(1, 8) AS r(i)");
      await c.run('ALTER TABLE issue_states DROP COLUMN project_id');
      await c.run('ALTER TABLE issue_states DROP COLUMN opened_by');
      await c.run('ALTER TABLE issue_states DROP COLUMN created_at');
      await c.run('ALTER TABLE issue_states DROP COLUMN regressed_by');
      await c.run(`INSERT INTO issues VALUES ('iss', 'live', 'default', 'h', 't', 'c', 'TypeError', 'v', 'error', 'resolved',
        now(), now(), 3, 'a@1', 'a@2', now())`);
    });
    await docs.close();
    await db.close();

    db = await migratedDatabase(dir, EXTENSIONS); // catalog 1 and issues 2 taken over, the newer ones run
    docs = DocStore.open(dir);
    await migrate(db, 'duckdb', DUCKDB_MIGRATIONS, docs); // 1-6 taken over, 7 and 8 run
    await migrate(db, 'parquet', parquetMigrations(lakeTables(undefined), true), undefined);
    expect(await applied(db)).toEqual([...DUCKDB_MIGRATIONS.map((m) => `duckdb:${m.version}`), ...extensionLedger(), 'parquet:1', 'parquet:2']);
    // Migration 7 of the duckdb exporter moved the status to the catalog.
    const state = (await db.reader().runAndReadAll("SELECT status, project_id FROM issue_states WHERE id = 'iss'")).getRows();
    expect(state).toEqual([['resolved', 'default']]);
    // The projects that existed grouped their issues with version 1 (the grouping processor moves them on at start).
    const grouping = (await db.reader().runAndReadAll('SELECT project_id, version FROM grouping_versions')).getRows();
    expect(grouping).toEqual([['default', 1]]);
    await docs.close();
    await db.close();
  });
});
