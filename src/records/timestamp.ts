// ISO 8601 date-times as senders write them. Date.parse is not used to validate: it rolls
// 2024-02-30 over to March 1st and reads a zone-less time as local time. The fields are read
// by position once the shape matched: this runs for every breadcrumb, and is several times faster
// than reading regex capture groups (bench/README.md, "Why the code is shaped this way").
import { MAX_STORABLE_MILLIS } from './nanos.js';

const SHAPE = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
}

/** The decimal number written in text[start, end). Only for digits. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

function isDigit(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 48 && code <= 57;
}

/** Epoch milliseconds of an ISO 8601 date-time (a missing zone means UTC), or undefined. */
export function parseTimestamp(text: string): number | undefined {
  if (!SHAPE.test(text)) return undefined;
  // YYYY-MM-DDTHH:mm, then [:ss[.fraction]] and [Z | ±HH[[:]mm]].
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  let at = 16;
  let second = 0;
  let millis = 0;
  if (text[at] === ':') {
    second = digits(text, at + 1, at + 3);
    at += 3;
  }
  if (text[at] === '.' || text[at] === ',') {
    let end = at + 1;
    while (isDigit(text, end)) end++;
    const fraction = text.slice(at + 1, Math.min(end, at + 4)).padEnd(3, '0'); // beyond ms: cut
    millis = digits(fraction, 0, 3);
    at = end;
  }
  let offset = 0;
  if (at < text.length && text[at] !== 'Z' && text[at] !== 'z') {
    const offsetHours = digits(text, at + 1, at + 3);
    const offsetMinutes = text.length > at + 3 ? digits(text, text.length - 2, text.length) : 0;
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    offset = (text[at] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;

  let time = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC reads the years 0-99 as 1900-1999; go through 2000, a leap year like 0000.
  if (year < 100) time = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis)).setUTCFullYear(year);
  return time - offset;
}

export function isTimestamp(text: string): boolean {
  return parseTimestamp(text) !== undefined;
}

/** An ISO 8601 date-time between 1970 and 2262: what a signed 64-bit count of nanoseconds holds. */
export function isStorableTimestamp(text: string): boolean {
  const millis = parseTimestamp(text);
  return millis !== undefined && millis >= 0 && millis <= MAX_STORABLE_MILLIS;
}

/** What normalizeTimestamp returns; most SDKs send it already (Date.prototype.toISOString). */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** UTC, millisecond precision: `2024-05-01T10:00:00.000Z`. Only for text that isTimestamp accepts. */
export function normalizeTimestamp(text: string): string {
  return CANONICAL.test(text) ? text : new Date(parseTimestamp(text)!).toISOString();
}
