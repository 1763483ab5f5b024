// Writes one group of spans in the current transaction, skipping (trace_id, span_id) pairs already
// stored for the same dataset and project, so a re-sent batch stores nothing twice.
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import type { Item } from '../../src/engine/item.js';
import { appendSpanColumns } from '../../src/storage/appenders.js';
import type { Span } from '../../src/records/span.js';
import { appendRows } from './appenders.js';

export async function writeSpans(connection: DuckDBConnection, items: Item<Span>[]): Promise<void> {
  const fresh = await skipStored(connection, items);
  if (fresh.length === 0) return;
  await appendRows(connection, 'spans', (appender) => {
    for (const item of fresh) {
      appendSpanColumns(appender, item);
      appender.endRow();
    }
  });
}

async function skipStored(connection: DuckDBConnection, items: Item<Span>[]): Promise<Item<Span>[]> {
  const key = (dataset: string, project: string, trace: string, span: string) => `${dataset}\0${project}\0${trace}\0${span}`;
  const traces = [...new Set(items.map((item) => item.data.trace_id))];
  // One list parameter joined against the trace ids, not one parameter per trace.
  const result = await connection.runAndReadAll(
    'SELECT dataset, project_id, trace_id, span_id FROM spans WHERE trace_id IN (SELECT unnest($traces))',
    { traces: listValue(traces) },
  );
  const seen = new Set(result.getRows().map(([d, p, t, s]) => key(String(d), String(p), String(t), String(s))));
  return items.filter(({ data, tenant }) => {
    const k = key(tenant.dataset, tenant.projectId, data.trace_id, data.span_id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
