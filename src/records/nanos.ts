// Span times are exact nanoseconds (bigint); the API also shows them as milliseconds and ISO.

export function nanosToMillis(nanos: bigint): number {
  return Number(nanos / 1_000_000n);
}

export function nanosToIso(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}
