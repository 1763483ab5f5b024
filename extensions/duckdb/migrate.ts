// Versioned schema migrations, per owner: the catalog and each storing exporter keep their own
// list, recorded in `migrations (owner, version)`. Each migration runs once, in order, in its own
// transaction on the writer connection.
//
// Databases written before owners existed recorded one global list in `schema_migrations`; a
// migration that carries `legacy: N` is the owner's share of that list's migration N and counts
// as applied where N was.
//
// Owners change too: the catalog's single list was split among the extensions that own its tables
// (extensions/*/migrations.ts), keeping every version number. An owner given a `formerOwner` takes
// over each of its versions the former owner recorded, so a data directory written before the
// split runs none of them again.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Database } from './database.js';

export interface Migration<C = void> {
  version: number;
  name: string;
  sql: string;
  /** A step SQL cannot do, run after `sql` in the same transaction. */
  run?: (connection: DuckDBConnection, context: C) => Promise<void>;
  /** The version of the pre-owner `schema_migrations` list this migration was part of. */
  legacy?: number;
}

export async function migrate<C>(db: Database, owner: string, migrations: readonly Migration<C>[], context: C, formerOwner?: string): Promise<void> {
  const done = await db.write(async (connection) => {
    await connection.run(
      `CREATE TABLE IF NOT EXISTS migrations (owner VARCHAR NOT NULL, version INTEGER NOT NULL, name VARCHAR NOT NULL,
         applied_at TIMESTAMP NOT NULL, PRIMARY KEY (owner, version))`,
    );
    const applied = await connection.runAndReadAll('SELECT version FROM migrations WHERE owner = ?', [owner]);
    const versions = new Set(applied.getRows().map(([version]) => Number(version)));
    if (formerOwner !== undefined) {
      const former = await connection.runAndReadAll('SELECT version FROM migrations WHERE owner = ?', [formerOwner]);
      const formerVersions = new Set(former.getRows().map(([version]) => Number(version)));
      for (const migration of migrations) {
        if (versions.has(migration.version) || !formerVersions.has(migration.version)) continue;
        await connection.run('INSERT INTO migrations SELECT ?, version, name, applied_at FROM migrations WHERE owner = ? AND version = ?', [
          owner,
          formerOwner,
          migration.version,
        ]);
        versions.add(migration.version);
      }
    }
    const legacy = await connection.runAndReadAll("SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'");
    if (Number(legacy.getRows()[0][0]) > 0) {
      const old = await connection.runAndReadAll('SELECT version FROM schema_migrations');
      const oldVersions = new Set(old.getRows().map(([version]) => Number(version)));
      for (const migration of migrations) {
        if (migration.legacy === undefined || versions.has(migration.version) || !oldVersions.has(migration.legacy)) continue;
        await connection.run('INSERT INTO migrations VALUES (?, ?, ?, now())', [owner, migration.version, migration.name]);
        versions.add(migration.version);
      }
    }
    return versions;
  });
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await db.writeInOwnTransaction(async (connection) => {
      await connection.run('BEGIN TRANSACTION');
      try {
        if (migration.sql) await connection.run(migration.sql);
        await migration.run?.(connection, context);
        await connection.run('INSERT INTO migrations VALUES (?, ?, ?, now())', [owner, migration.version, migration.name]);
        await connection.run('COMMIT');
      } catch (error) {
        throw new Error(`${owner} migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`, { cause: error });
      }
    });
  }
}
