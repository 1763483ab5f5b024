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

/** Where sentryIso's arithmetic is exact (see there); smaller values go through sentryTime. */
const EXACT_FROM = 1024;
const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
/** The date part of the last day asked for: an event's times fall on one or two days. */
let lastDay = -1;
let lastDayText = '';

/**
 * What `sentryTime(value)?.iso` is, without BigInt arithmetic, a number's text or a Date per call
 * for float seconds: every breadcrumb carries one. Milliseconds are the whole seconds × 1000 plus the first three decimals of the shortest
 * text that reads back as the value (what sentryTime reads), found from the value itself:
 * - From EXACT_FROM (2^10) on, the fraction `value - whole` and the fraction × 1000 are exact
 *   doubles (the fraction has at most 42 significant bits, 1000 needs 10), so `k = ⌊fraction × 1000⌋`
 *   is exact, and the value lies in [whole + k/1000, whole + (k+1)/1000).
 * - Below the year 9999 a double's rounding interval is far narrower than a millisecond, so at
 *   most one multiple of 1/1000 reads back as the value. When one does, the shortest text is that
 *   multiple (no text with more decimals is shorter), else the shortest text lies in the same
 *   millisecond as the value (a multiple between them would read back as the value too). The only
 *   multiple that can read back as the value and change the millisecond is the upper one:
 *   `(whole × 1000 + k + 1) / 1000`, one correctly rounded division, is the double that text reads as.
 */
export function sentryIso(value: unknown): string | undefined {
  if (typeof value === 'number' && value >= EXACT_FROM && value < MAX_SECONDS) {
    const whole = Math.floor(value);
    const ms = whole * 1000 + Math.floor((value - whole) * 1000);
    return isoOfMillis((ms + 1) / 1000 === value ? ms + 1 : ms);
  }
  return sentryTime(value)?.iso;
}

/** `new Date(ms).toISOString()` for a time in 1970-9999, with the date part kept for the next call. */
function isoOfMillis(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 11);
    lastDay = day;
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${lastDayText}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
}
