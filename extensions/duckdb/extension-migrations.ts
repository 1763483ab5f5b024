// How an extension runs its migrations: under its own owner in the `migrations` ledger, taking over
// what the catalog's single list recorded before it was split by owner (see migrate.ts).
import type { Database } from './database.js';
import { migrate, type Migration } from './migrate.js';

/** The ledger owner of an extension's migrations (`extension:catalog`), apart from the exporters' owners (`duckdb`, `parquet`). */
export function extensionOwner(type: string): string {
  return `extension:${type}`;
}

export function migrateExtension(db: Database, type: string, migrations: readonly Migration[]): Promise<void> {
  return migrate(db, extensionOwner(type), migrations, undefined, 'catalog');
}
