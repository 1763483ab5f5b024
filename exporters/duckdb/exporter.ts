import type { ComponentSettings, Exporter } from '../../src/engine/component.js';
import type { Item, Signal } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import type { Database } from '../../src/storage/database.js';
import { closeAppenders } from './appenders.js';
import type { DuckdbConfig } from './config.js';
import { eventIntake } from './events-writer.js';
import { Intake } from './intake.js';
import { spanIntake } from './spans-writer.js';

export class DuckdbExporter implements Exporter {
  private readonly events: Intake<ErrorEvent>;
  private readonly spans: Intake<Span>;
  private readonly db: Database;

  constructor(settings: ComponentSettings<DuckdbConfig>) {
    const db = (this.db = settings.host.database);
    const max = settings.config.max_batch_items;
    this.events = new Intake(eventIntake, db, max, 4 * max, settings.host.logger);
    this.spans = new Intake(spanIntake, db, max, 4 * max, settings.host.logger);
  }

  export(signal: Signal, items: Item[]): Promise<void> {
    if (signal === 'events') return this.events.accept(items as Item<ErrorEvent>[]);
    if (signal === 'traces') return this.spans.accept(items as Item<Span>[]);
    return Promise.reject(new Error(`the duckdb exporter does not store ${signal}`));
  }

  async start(): Promise<void> {
    await this.events.recover();
    await this.spans.recover();
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.events.shutdown(), this.spans.shutdown()]);
    await this.db.write(async (connection) => closeAppenders(connection));
  }
}
