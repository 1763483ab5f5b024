// ISO 8601 date-times as senders write them. Date.parse is not used to validate: it rolls
// 2024-02-30 over to March 1st and reads a zone-less time as local time.

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/** Epoch milliseconds of an ISO 8601 date-time (a missing zone means UTC), or undefined. */
export function parseTimestamp(text: string): number | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = match[6] === undefined ? 0 : Number(match[6]);
  const millis = match[7] === undefined ? 0 : Number(match[7].slice(0, 3).padEnd(3, '0'));
  const offsetHours = match[10] === undefined ? 0 : Number(match[10]);
  const offsetMinutes = match[11] === undefined ? 0 : Number(match[11]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;

  let time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC reads the years 0-99 as 1900-1999.
  if (year < 100) time = new Date(time).setUTCFullYear(year);
  const offset = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return time - offset;
}

export function isTimestamp(text: string): boolean {
  return parseTimestamp(text) !== undefined;
}

/** What normalizeTimestamp returns; most SDKs send it already (Date.prototype.toISOString). */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** UTC, millisecond precision: `2024-05-01T10:00:00.000Z`. Only for text that isTimestamp accepts. */
export function normalizeTimestamp(text: string): string {
  return CANONICAL.test(text) ? text : new Date(parseTimestamp(text)!).toISOString();
}
