// Items that were acknowledged and then could not be stored by a later stage (for instance a value
// DuckDB refuses when it indexes the row): kept in the catalog with the reason, counted in
// /metrics and listed by `faultline quarantine list`, so one bad item never blocks a queue or a
// restart, and nothing acknowledged is silently lost.
import type { Dataset, Signal } from '../../src/engine/item.js';
import type { Metrics } from '../../src/telemetry/metrics.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

export interface QuarantinedItem {
  /** The component that could not store it (`duckdb`). */
  component: string;
  signal: Signal;
  dataset: Dataset;
  project_id: string;
  /** The item's key in that component (an event id, `trace/span`). */
  item_key: string;
  reason: string;
  /** The item's document, as it was acknowledged. */
  doc: string;
  quarantined_at: string;
}

export class Quarantine {
  constructor(
    private readonly db: Database,
    private readonly metrics?: Metrics,
  ) {}

  async add(items: Array<Omit<QuarantinedItem, 'quarantined_at'>>): Promise<void> {
    if (items.length === 0) return;
    await this.db.write(async (c) => {
      for (const item of items)
        await c.run('INSERT INTO quarantine VALUES (?, ?, ?, ?, ?, ?, ?, now())', [
          item.component,
          item.signal,
          item.dataset,
          item.project_id,
          item.item_key,
          item.reason.slice(0, 2000),
          item.doc,
        ]);
    });
    for (const item of items) this.metrics?.quarantined.inc({ component: item.component, signal: item.signal });
  }

  /** Newest first; documents left out unless asked for. */
  async list(options: { limit?: number; withDocuments?: boolean } = {}): Promise<QuarantinedItem[]> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT component, signal, dataset, project_id, item_key, reason, ${options.withDocuments ? 'doc' : "'' AS doc"}, quarantined_at
         FROM quarantine ORDER BY quarantined_at DESC LIMIT ?`,
      [options.limit ?? 100],
    );
    return rows<QuarantinedItem>(result);
  }
}
