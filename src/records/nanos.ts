// Span times are exact nanoseconds (bigint); the API also shows them as milliseconds and ISO.

/**
 * The latest time a signed 64-bit count of nanoseconds since the epoch holds
 * (2262-04-11T23:47:16.854775807Z). Times are stored that way (DuckDB BIGINT and TIMESTAMP,
 * Parquet INT64), so no record may carry a later one, nor one before the epoch.
 */
export const MAX_STORABLE_NANOS = 2n ** 63n - 1n;
export const MAX_STORABLE_MILLIS = Number(MAX_STORABLE_NANOS / 1_000_000n);
/** How validation messages name the range. */
export const STORABLE_RANGE = 'between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16.854Z';

export function nanosToMillis(nanos: bigint): number {
  return Number(nanos / 1_000_000n);
}

export function nanosToIso(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}
