// The duckdb extension: the service's DuckDB file (database.ts), opened when the extension starts
// and closed after everything that writes to it has stopped.
import type { Extension } from '../../src/engine/extension.js';
import { Database } from './database.js';
import { migrateExtension } from './extension-migrations.js';
import { DATABASE_MIGRATIONS } from './migrations.js';

export class DuckdbExtension implements Extension {
  private opened?: Database;
  private closing?: Promise<void>;

  constructor(
    /** `service.data_dir`, resolved: the file is `faultline.duckdb` in it. */
    private readonly dataDir: string,
  ) {}

  /** The open database; an extension that depends on this one gets it once this one started. */
  get database(): Database {
    if (!this.opened) throw new Error('the duckdb extension has not started');
    return this.opened;
  }

  async start(): Promise<void> {
    const database = await Database.open(this.dataDir);
    try {
      await migrateExtension(database, 'duckdb', DATABASE_MIGRATIONS);
    } catch (error) {
      await database.close().catch(() => undefined);
      throw error;
    }
    this.opened = database;
  }

  /** Idempotent: the service closes the database even when a graceful stop ran out of time. */
  shutdown(): Promise<void> {
    this.closing ??= this.opened ? this.opened.close() : Promise.resolve();
    return this.closing;
  }
}
