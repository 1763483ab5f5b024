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
 * Appends a row per item with `appendRow`, then flushes into the current transaction; on failure
 * the appender is discarded. The loop is here and `appendRow` is a module-level function, not a
 * closure made per batch: V8 holds a function's optimized code only weakly from its feedback
 * vector, so a closure's code dies with the closure at the next major GC, and under load the
 * batch loops were recompiled by TurboFan after every mark-compact, and ran unoptimized in
 * between.
 */
export async function appendRows<T>(
  connection: DuckDBConnection,
  table: string,
  rows: Iterable<T>,
  appendRow: (appender: DuckDBAppender, row: T) => void,
): Promise<void> {
  const appender = await appenderFor(connection, table);
  try {
    for (const row of rows) {
      appendRow(appender, row);
      appender.endRow();
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
