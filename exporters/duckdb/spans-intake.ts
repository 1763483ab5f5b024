// Spans in the duckdb exporter's intake (intake.ts): documents keyed by what identifies the span
// and its start (see spanKey), so a re-sent batch stores nothing twice; rows added to DuckDB in one transaction with
// the Appender, without the document. After a restart a row is rebuilt from its document and the
// time of receipt kept in the pending entry. Spans coming back from pending entries after a restart may have been
// committed before the crash, so those are looked up first (`recheck`).
import { listValue, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { spanDocumentJson } from '../../src/records/span-document.js';
import type { Span } from '../../src/records/span.js';
import { appendSpanColumns, spanColumns, type SpanColumns } from '../../src/records/span-row.js';
import { spanKey } from './docs.js';
import { appendRows } from './kept-appenders.js';
import type { Accepted, IntakeKind } from './intake.js';

export const spanIntake: IntakeKind<Span> = {
  kind: 'traces',
  key: (tenant, span) => spanKey(tenant.dataset, tenant.projectId, span.start_time_unix_nano, span.trace_id, span.span_id),
  document: spanDocumentJson,
  // The document has every column of the row but the time of receipt.
  pending: (span) => span.received_at,
  fromDocument(doc, extra) {
    const d = JSON.parse(doc) as Omit<SpanColumns, 'start_time_unix_nano' | 'end_time_unix_nano'> & {
      start_time_unix_nano: string;
      end_time_unix_nano: string;
    };
    const columns: SpanColumns = {
      trace_id: d.trace_id,
      span_id: d.span_id,
      parent_span_id: d.parent_span_id,
      name: d.name,
      service_name: d.service_name,
      start_time_unix_nano: BigInt(d.start_time_unix_nano),
      end_time_unix_nano: BigInt(d.end_time_unix_nano),
      status: d.status,
      kind: d.kind,
      received_at: String(extra),
    };
    return columns as Span; // indexing reads only the row's columns
  },
  // The row's columns only (the rest is in the document).
  slim: (span) => spanColumns(span) as Span,
  index: indexSpans,
};

async function indexSpans(connection: DuckDBConnection, spans: Accepted<Span>[], recheck: boolean): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  let fresh = spans;
  if (recheck) {
    const key = (dataset: unknown, project: unknown, trace: unknown, span: unknown) => `${dataset}\0${project}\0${trace}\0${span}`;
    // One list parameter joined against the trace ids (the trace_id index), not one per trace.
    const stored = await connection.runAndReadAll('SELECT dataset, project_id, trace_id, span_id FROM spans WHERE trace_id IN (SELECT unnest($traces))', {
      traces: listValue([...new Set(spans.map(({ data }) => data.trace_id))]),
    });
    const seen = new Set(stored.getRows().map(([d, p, t, s]) => key(d, p, t, s)));
    fresh = spans.filter(({ tenant, data }) => !seen.has(key(tenant.dataset, tenant.projectId, data.trace_id, data.span_id)));
  }
  if (fresh.length) {
    await appendRows(connection, 'spans', fresh, appendSpanRow);
  }
  await connection.run('COMMIT');
}

function appendSpanRow(appender: DuckDBAppender, span: Accepted<Span>): void {
  appendSpanColumns(appender, span, '');
}
