import type { ComponentSettings, Exporter } from '../../src/engine/component.js';
import type { Item, Signal } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import type { Database } from '../../src/storage/database.js';
import { closeAppenders } from './appenders.js';
import type { DuckdbConfig } from './config.js';
import { EventIntake } from './event-intake.js';
import { GroupCommit } from '../../src/storage/group-commit.js';
import { writeSpans } from './spans-writer.js';

export class DuckdbExporter implements Exporter {
  private readonly events: EventIntake;
  private readonly spans: GroupCommit<Item<Span>>;

  private readonly db: Database;

  constructor(settings: ComponentSettings<DuckdbConfig>) {
    const db = (this.db = settings.host.database);
    const max = settings.config.max_batch_items;
    this.events = new EventIntake(db, max, 4 * max, settings.host.logger);
    this.spans = new GroupCommit((items) => db.write((connection) => writeSpans(connection, items)), max);
  }

  export(signal: Signal, items: Item[]): Promise<void> {
    if (signal === 'events') return this.events.accept(items as Item<ErrorEvent>[]);
    if (signal === 'traces') return this.spans.submit(items as Item<Span>[]);
    return Promise.reject(new Error(`the duckdb exporter does not store ${signal}`));
  }

  start(): Promise<void> {
    return this.events.recover();
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.events.shutdown(), this.spans.flush()]);
    await this.db.write(async (connection) => closeAppenders(connection));
  }
}
