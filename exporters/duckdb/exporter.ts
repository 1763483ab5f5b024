import type { ComponentSettings, Exporter } from '../../src/engine/component.js';
import type { Item, Signal } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import type { Span } from '../../src/records/span.js';
import type { DuckdbConfig } from './config.js';
import { isDuplicateKey, writeEvents } from './events-writer.js';
import { GroupCommit } from '../../src/storage/group-commit.js';
import { writeSpans } from './spans-writer.js';

export class DuckdbExporter implements Exporter {
  private readonly events: GroupCommit<Item<ErrorEvent>>;
  private readonly spans: GroupCommit<Item<Span>>;

  constructor(settings: ComponentSettings<DuckdbConfig>) {
    const db = settings.host.database;
    const max = settings.config.max_batch_items;
    this.events = new GroupCommit(
      (items) =>
        db
          .write((connection) => writeEvents(connection, items, false))
          .catch((error: unknown) => {
            if (!isDuplicateKey(error)) throw error;
            return db.write((connection) => writeEvents(connection, items, true));
          }),
      max,
    );
    this.spans = new GroupCommit((items) => db.write((connection) => writeSpans(connection, items)), max);
  }

  export(signal: Signal, items: Item[]): Promise<void> {
    if (signal === 'events') return this.events.submit(items as Item<ErrorEvent>[]);
    if (signal === 'traces') return this.spans.submit(items as Item<Span>[]);
    return Promise.reject(new Error(`the duckdb exporter does not store ${signal}`));
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.events.flush(), this.spans.flush()]);
  }
}
