import type { DuckDBResultReader } from '@duckdb/node-api';

/** Result rows as plain objects: timestamps as ISO strings, BIGINTs as numbers. */
export function rows<T>(result: DuckDBResultReader): T[] {
  return result.getRowObjectsJS().map((row) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      out[key] = value instanceof Date ? value.toISOString() : typeof value === 'bigint' ? Number(value) : value;
    }
    return out as T;
  });
}
