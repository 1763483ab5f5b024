// The catalog extension: organizations, projects and their keys (catalog.ts), the web app's users
// and sessions (users.ts), and the bearer-key authenticator over them.
import { Authenticator } from '../../src/auth/authenticator.js';
import type { Extension } from '../../src/engine/extension.js';
import { migrateExtension, type Database } from '../duckdb/index.js';
import { Catalog } from './catalog.js';
import { CATALOG_MIGRATIONS } from './migrations.js';
import { Users } from './users.js';

export class CatalogExtension implements Extension {
  readonly catalog: Catalog;
  readonly users: Users;
  readonly auth: Authenticator;

  constructor(
    private readonly db: Database,
    ingestIds: 'sequential' | 'hashed',
  ) {
    this.catalog = new Catalog(db, ingestIds);
    this.users = new Users(db);
    this.auth = new Authenticator(this.catalog);
  }

  async start(): Promise<void> {
    await migrateExtension(this.db, 'catalog', CATALOG_MIGRATIONS);
  }
}
