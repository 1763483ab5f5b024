import type { ComponentSettings, Exporter } from '../../src/engine/component.js';
import type { Item, Signal } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { DuckdbConfig } from './config.js';
import { writeEvents } from './events-writer.js';
import { GroupCommit } from './group-commit.js';

export class DuckdbExporter implements Exporter {
  private readonly events: GroupCommit<Item<ErrorEvent>>;

  constructor(private readonly settings: ComponentSettings<DuckdbConfig>) {
    const db = settings.host.database;
    this.events = new GroupCommit((items) => db.write((connection) => writeEvents(connection, items)), settings.config.max_batch_items);
  }

  export(signal: Signal, items: Item[]): Promise<void> {
    if (signal !== 'events') throw new Error(`the duckdb exporter does not store ${signal} yet`);
    return this.events.submit(items as Item<ErrorEvent>[]);
  }

  async shutdown(): Promise<void> {
    await this.events.flush();
  }
}
