// The duckdb extension's public interface: the Database, migrations, the change journal, private files.
import { requireExtension } from '../../src/engine/extension.js';
import type { ExtensionLookup } from '../../src/engine/extension.js';
import type { Database } from './database.js';
import { DuckdbExtension } from './extension.js';

export { Database, DatabaseCorruptError, DatabaseLockedError } from './database.js';
export { migrate, type Migration } from './migrate.js';
export { extensionOwner, migrateExtension } from './extension-migrations.js';
export { deletedAt, markDeleted, type Journal, type JournalChange } from './journal.js';
export { makePrivateDir, makePrivateFiles, PRIVATE_UMASK, syncDir } from './private-files.js';
export { duckdbExtensionFactory } from './factory.js';
export { DuckdbExtension } from './extension.js';

/** The running duckdb extension's database (a component that declares `extensions: ['duckdb']`). */
export function databaseOf(host: ExtensionLookup): Database {
  return requireExtension(host, 'duckdb', DuckdbExtension).database;
}
