// Span times in any of the units senders use, recognized by magnitude and converted to exact
// nanoseconds: seconds (~1.7e9), milliseconds (~1.7e12), microseconds (~1.7e15), nanoseconds
// (~1.7e18). The boundaries sit at factors of 1000 between the units' values for today, so any
// date between 1973 and 5138 reads unambiguously. Times are integers (DESIGN.md), and must fall
// between 1970 and 2262, where their nanoseconds fit the signed 64-bit integers they are stored as.
import { MAX_STORABLE_NANOS, STORABLE_RANGE } from '../nanos.js';

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
  if (!Number.isInteger(value)) return `must be an integer, got ${value} (times are integers: send milliseconds, or nanoseconds as a decimal string)`;
  return scale(BigInt(value));
}

const UNITS: ReadonlyArray<[below: bigint, factor: bigint, unit: string]> = [
  [SECONDS_BELOW, 1_000_000_000n, 'seconds'],
  [MILLIS_BELOW, 1_000_000n, 'milliseconds'],
  [MICROS_BELOW, 1_000n, 'microseconds'],
];

function scale(value: bigint): bigint | string {
  let nanos = value;
  let unit = 'nanoseconds';
  for (const [below, factor, name] of UNITS) {
    if (value < below) {
      nanos = value * factor;
      unit = name;
      break;
    }
  }
  if (nanos <= MAX_STORABLE_NANOS) return nanos;
  return `must be ${STORABLE_RANGE}; ${value} read as ${unit} is after 2262`;
}
