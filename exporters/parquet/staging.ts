// Staging: the exporter's acknowledgment is the commit of the items into a staging table (the
// same columns as the duckdb exporter's tables plus batch_id, NULL until a flush takes the row).
import type { DuckDBConnection } from '@duckdb/node-api';
import { signalBatch, type Item } from '../../src/engine/item.js';
import { eventDocumentJson } from '../../src/records/event-document.js';
import { spanDocumentJson } from '../../src/records/span-document.js';
import { appendEventColumns } from '../../src/records/event-row.js';
import { appendSpanColumns } from '../../src/records/span-row.js';
import { replaySegmentDocument } from '../../src/records/replay.js';
import { appendReplayColumns } from '../../src/records/replay-row.js';
import type { LakeSignal } from './lake.js';
import type { LakeTables } from './migrations.js';

/**
 * Appends the items to the signal's staging table in the caller's transaction and returns the
 * summed length of their JSON documents (the flush trigger's size estimate).
 */
export async function stageItems(connection: DuckDBConnection, tables: LakeTables, signal: LakeSignal, items: Item[]): Promise<number> {
  const appender = await connection.createAppender(tables.staging[signal]);
  let bytes = 0;
  try {
    const append = (doc: string) => {
      bytes += doc.length;
      appender.appendNull(); // batch_id
      appender.endRow();
    };
    const batch = signalBatch(signal, items);
    if (batch.signal === 'events')
      for (const event of batch.items) {
        const doc = eventDocumentJson(event.data);
        appendEventColumns(appender, event, doc);
        append(doc);
      }
    else if (batch.signal === 'traces')
      for (const span of batch.items) {
        const doc = spanDocumentJson(span.data);
        appendSpanColumns(appender, span, doc);
        append(doc);
      }
    else if (batch.signal === 'replays')
      // The events are not staged: the exporter stored them as a blob first (`blob` set).
      for (const segment of batch.items) {
        const doc = replaySegmentDocument(segment.data);
        appendReplayColumns(appender, segment, doc);
        append(doc);
      }
    appender.flushSync();
  } catch (error) {
    // A half-appended row makes close fail too; the first error is the one to report.
    try {
      appender.closeSync();
    } catch {
      /* reported below */
    }
    throw error;
  }
  appender.closeSync();
  return bytes;
}

/** Rows and document bytes staged and not yet taken by a flush. */
export async function stagedTotals(connection: DuckDBConnection, tables: LakeTables, signal: LakeSignal): Promise<{ rows: number; bytes: number }> {
  const result = await connection.runAndReadAll(
    `SELECT count(*) AS n, coalesce(sum(length(doc)), 0) AS b FROM ${tables.staging[signal]} WHERE batch_id IS NULL`,
  );
  const [n, b] = result.getRows()[0];
  return { rows: Number(n), bytes: Number(b) };
}
