// Appenders kept open on the writer connection across transactions: creating one is a round trip
// to DuckDB's threads, and under load every round trip waits behind the HTTP work on the event
// loop. An appender whose flush failed keeps its rows buffered, so it is dropped and made anew.
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';

const open = new WeakMap<DuckDBConnection, Map<string, DuckDBAppender>>();

export async function appenderFor(connection: DuckDBConnection, table: string): Promise<DuckDBAppender> {
  let byTable = open.get(connection);
  if (!byTable) open.set(connection, (byTable = new Map()));
  let appender = byTable.get(table);
  if (!appender) byTable.set(table, (appender = await connection.createAppender(table)));
  return appender;
}

/**
 * Rows flushed into the transaction at a time. Appending and flushing run on the main thread (the
 * binding has no asynchronous flush): a whole index batch at once held the event loop for tens of
 * milliseconds every second, which every request in flight waited out (the p99 at 70 % of
 * capacity). In slices, with a turn of the event loop between them, a request waits one slice.
 */
export const APPEND_SLICE_ROWS = 200;

/**
 * Span rows, narrow and arriving by the thousand, go in larger slices: each flush has a fixed cost
 * in DuckDB, which at 200 span rows a slice came to as much as appending the rows themselves
 * (bench/README.md, "Spans in bulk (round three, third pass)").
 */
export const SPAN_APPEND_SLICE_ROWS = 1024;

/**
 * Appends a row per item with `appendRow`, flushing into the current transaction every
 * `sliceRows` rows and letting the event loop turn between slices; on failure the appender
 * is discarded. The caller holds the connection for the transaction, so nothing else appends
 * meanwhile. The loop is here and `appendRow` is a module-level function, not a closure made per
 * batch: V8 holds a function's optimized code only weakly from its feedback vector, so a
 * closure's code dies with the closure at the next major GC, and under load the batch loops were
 * recompiled by TurboFan after every mark-compact, and ran unoptimized in between.
 */
export async function appendRows<T>(
  connection: DuckDBConnection,
  table: string,
  rows: Iterable<T>,
  appendRow: (appender: DuckDBAppender, row: T) => void,
  sliceRows = APPEND_SLICE_ROWS,
): Promise<void> {
  const appender = await appenderFor(connection, table);
  try {
    let inSlice = 0;
    for (const row of rows) {
      appendRow(appender, row);
      appender.endRow();
      if (++inSlice === sliceRows) {
        appender.flushSync();
        inSlice = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    appender.flushSync();
  } catch (error) {
    open.get(connection)?.delete(table);
    try {
      appender.closeSync();
    } catch {
      // closing an appender of an aborted transaction throws again: keep the first error
    }
    throw error;
  }
}

/** Closes the connection's kept appenders (before the connection closes). */
export function closeAppenders(connection: DuckDBConnection): void {
  for (const appender of open.get(connection)?.values() ?? []) {
    try {
      appender.closeSync();
    } catch {
      // nothing buffered to lose: every commit flushed its rows
    }
  }
  open.delete(connection);
}
