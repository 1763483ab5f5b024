// Sentry's times: seconds since the epoch as a float (`1700000000.123456`) or an RFC 3339 string.
// Float seconds are converted exactly from their decimal digits (the shortest text that reads
// back as the same double, which is what JavaScript SDKs wrote), not through a float product.

export interface SentryTime {
  /** Nanoseconds since the epoch. */
  nanos: bigint;
  /** ISO 8601 with millisecond precision. */
  iso: string;
}

/** The largest time the event store takes (year 9999), in seconds. */
const MAX_SECONDS = 253_402_300_799;

export function sentryTime(value: unknown): SentryTime | undefined {
  let nanos: bigint | undefined;
  if (typeof value === 'number') nanos = secondsToNanos(value);
  else if (typeof value === 'string') {
    if (/^\d+(\.\d+)?$/.test(value)) nanos = decimalSecondsToNanos(value);
    else {
      const ms = Date.parse(value);
      if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return undefined;
      // Fractions below the millisecond, which Date drops.
      const fraction = /\.(\d+)/.exec(value)?.[1] ?? '';
      const subMs = BigInt((fraction.slice(3, 9) || '0').padEnd(6, '0'));
      nanos = BigInt(ms) * 1_000_000n + subMs;
    }
  }
  if (nanos === undefined || nanos < 0n || nanos > BigInt(MAX_SECONDS) * 1_000_000_000n) return undefined;
  return { nanos, iso: new Date(Number(nanos / 1_000_000n)).toISOString() };
}

export function secondsToNanos(seconds: number): bigint | undefined {
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  // toString gives the shortest round-tripping decimal; small or huge numbers use an exponent.
  const text = seconds.toString();
  if (/e/i.test(text)) return seconds < 1 ? 0n : BigInt(Math.round(seconds)) * 1_000_000_000n;
  return decimalSecondsToNanos(text);
}

function decimalSecondsToNanos(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.slice(0, 9).padEnd(9, '0'));
}

/**
 * What `sentryTime(value)?.iso` is, without BigInt arithmetic for float seconds: every breadcrumb
 * carries one, and the exact conversion was a fifth of mapping an event. Milliseconds are whole
 * seconds × 1000 plus the first three decimals of the shortest text, so the same digits decide.
 */
export function sentryIso(value: unknown): string | undefined {
  if (typeof value === 'number' && value >= 0 && value < MAX_SECONDS) {
    const text = value.toString();
    if (!text.includes('e')) {
      const dot = text.indexOf('.');
      const ms = dot === -1 ? Number(text) * 1000 : Number(text.slice(0, dot)) * 1000 + Number(text.slice(dot + 1, dot + 4).padEnd(3, '0'));
      return new Date(ms).toISOString();
    }
  }
  return sentryTime(value)?.iso;
}
