// The artifacts extension: uploaded source maps, ProGuard mappings and symbol files (artifacts.ts),
// their metadata in the database and their bytes once per content under service.artifacts.path.
import type { Logger } from 'pino';
import type { Extension } from '../../src/engine/extension.js';
import { migrateExtension, type Database } from '../duckdb/index.js';
import { ArtifactStore } from './artifacts.js';
import { ARTIFACTS_MIGRATIONS } from './migrations.js';

export class ArtifactsExtension implements Extension {
  readonly store: ArtifactStore;

  constructor(
    private readonly db: Database,
    dir: string,
    shared: boolean,
    private readonly logger: Logger,
  ) {
    this.store = new ArtifactStore(db, dir, shared);
  }

  async start(): Promise<void> {
    await migrateExtension(this.db, 'artifacts', ARTIFACTS_MIGRATIONS);
    const swept = await this.store.start();
    if (swept > 0) this.logger.info({ files: swept, path: this.store.dir }, 'removed artifact files no bundle refers to (left by a crash)');
  }
}
