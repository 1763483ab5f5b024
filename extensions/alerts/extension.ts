// The alerts extension: alert rules (held in memory as well), their firings and the outbox of
// deliveries, the destination check and the per-project limits (alerts.ts).
import type { Extension } from '../../src/engine/extension.js';
import { migrateExtension, type Database } from '../duckdb/index.js';
import { Alerts } from './alerts.js';
import { ALERTS_MIGRATIONS } from './migrations.js';

export class AlertsExtension implements Extension {
  readonly alerts: Alerts;

  constructor(private readonly db: Database) {
    this.alerts = new Alerts(db);
  }

  async start(): Promise<void> {
    await migrateExtension(this.db, 'alerts', ALERTS_MIGRATIONS);
    await this.alerts.rules.load();
  }
}
