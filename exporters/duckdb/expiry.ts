// Retention in the duckdb exporter's tables: rows dated before each signal's first kept day go,
// with their documents and the issues last seen before it.
import type { ExpiryResult } from '../../src/engine/component.js';
import type { Signal } from '../../src/engine/item.js';
import type { Database } from '../../src/storage/database.js';
import { spanKey, type DocKey, type DocKind, type DocStore } from './docs.js';

export async function expire(db: Database, docs: DocStore, firstKept: Partial<Record<Signal, string>>): Promise<ExpiryResult> {
  const expired: Record<DocKind, DocKey[]> = { events: [], traces: [] };
  const deletedRows = await db.write(async (c) => {
    const counts: Record<string, number> = {};
    if (firstKept.events) {
      const before = BigInt(Date.parse(firstKept.events)) * 1000n;
      const events = await c.runAndReadAll('DELETE FROM events WHERE timestamp < make_timestamp(?::BIGINT) RETURNING dataset, project_id, id', [before]);
      expired.events = events.getRows().map((key) => key.map(String));
      counts.events = expired.events.length;
      counts.issues = (await c.run('DELETE FROM issues WHERE last_seen < make_timestamp(?::BIGINT)', [before])).rowsChanged;
    }
    if (firstKept.traces) {
      const before = BigInt(Date.parse(firstKept.traces)) * 1_000_000n;
      const spans = await c.runAndReadAll('DELETE FROM spans WHERE start_ns < ? RETURNING dataset, project_id, start_ns, trace_id, span_id', [before]);
      expired.traces = spans.getRows().map(([d, p, start, t, s]) => spanKey(String(d), String(p), BigInt(start as bigint), String(t), String(s)));
      counts.spans = expired.traces.length;
    }
    return counts;
  });
  // After the commit: a crash in between leaves documents without rows, never the reverse.
  await docs.remove('events', expired.events);
  await docs.remove('traces', expired.traces);
  return { deletedRows, deletedPartitions: [] };
}
