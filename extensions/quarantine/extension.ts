// The quarantine extension: acknowledged items a later stage refused, kept with the reason (quarantine.ts).
import type { Extension } from '../../src/engine/extension.js';
import type { Metrics } from '../../src/telemetry/metrics.js';
import { migrateExtension, type Database } from '../duckdb/index.js';
import { QUARANTINE_MIGRATIONS } from './migrations.js';
import { Quarantine } from './quarantine.js';

export class QuarantineExtension implements Extension {
  readonly quarantine: Quarantine;

  constructor(
    private readonly db: Database,
    metrics: Metrics,
  ) {
    this.quarantine = new Quarantine(db, metrics);
  }

  async start(): Promise<void> {
    await migrateExtension(this.db, 'quarantine', QUARANTINE_MIGRATIONS);
  }
}
