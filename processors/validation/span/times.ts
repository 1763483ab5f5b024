// Span times in any of the units senders use, recognized by magnitude and converted to exact
// nanoseconds: seconds (~1.7e9), milliseconds (~1.7e12), microseconds (~1.7e15), nanoseconds
// (~1.7e18). The boundaries sit at factors of 1000 between the units' values for today, so any
// date between 1973 and 5138 reads unambiguously.

const SECONDS_BELOW = 100_000_000_000n; // 1e11
const MILLIS_BELOW = 100_000_000_000_000n; // 1e14
const MICROS_BELOW = 100_000_000_000_000_000n; // 1e17

/** Exact nanoseconds, or a message saying what is wrong. */
export function toNanos(value: unknown): bigint | string {
  if (typeof value === 'bigint') return value < 0n ? 'must not be negative' : scale(value);
  if (typeof value === 'string') {
    if (!/^\d{1,20}$/.test(value)) return 'expected an integer time, got a string that is not one';
    return scale(BigInt(value));
  }
  if (typeof value !== 'number') return `expected an integer time, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`;
  if (!Number.isFinite(value) || value < 0) return 'must be a finite, non-negative number';
  if (Number.isInteger(value)) return scale(BigInt(value));
  // A fraction only makes sense for seconds or milliseconds (e.g. Python's time.time()).
  if (value < 1e11) return BigInt(Math.round(value * 1e6)) * 1000n;
  if (value < 1e14) return BigInt(Math.round(value * 1e3)) * 1000n;
  return 'a time in microseconds or nanoseconds must be an integer';
}

function scale(value: bigint): bigint {
  if (value < SECONDS_BELOW) return value * 1_000_000_000n;
  if (value < MILLIS_BELOW) return value * 1_000_000n;
  if (value < MICROS_BELOW) return value * 1_000n;
  return value;
}
