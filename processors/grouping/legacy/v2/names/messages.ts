// Messages, version 2: version 1's placeholders plus what it left in place — quoted user input,
// prefixed ids (`req_Qd1dQBl0yHe1Pm`), tokens, durations and sizes with their units — so that a
// frameless error groups by the sentence rather than by what it was said about. Identifiers stay:
// `ERR_404`, `utf8`, `reading 'map'`.
import { replaceIdentities, replaceNumbers } from '../../normalize-v1.js';

/**
 * A quoted span: '…', "…", `…`, ‘…’, “…” (no line breaks, at most 200 characters). A quote must
 * not touch a letter on its outer side, so the apostrophe of `can't` opens nothing.
 */
const QUOTED = /(?<![\w'])'([^'\n]{0,200})'(?![\w])|"([^"\n]{0,200})"|`([^`\n]{0,200})`|‘([^’\n]{0,200})’|“([^”\n]{0,200})”/g;
/** What code names — a property, a key, a module, a header — rather than what a user typed. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:[.:\\-][A-Za-z_$][\w$]*)*$/;
/** A path on the server (`/srv/templates/invoice.hbs`, `./config/app.yml`): where, not what. */
const PATH = /^(?:[A-Za-z]:)?(?:\.{0,2}[/\\]|~[/\\])[\w$.@~+/\\-]*$/;
/** Values that look like identifiers but are data. */
const LITERALS = new Set(['NaN', 'Infinity', '-Infinity', 'null', 'undefined', 'true', 'false', 'None', 'nil']);
const HAS_DIGIT = /\d/;
const PLACEHOLDER_ONLY = /^<[a-z]+>$/;

/** `req_Qd1dQBl0yHe1Pm`, `cus_NffrFeUfNV2Hib`, `ch_3MmlLrLkdIwHu7ix`: a short prefix and a random run of 10 or more. */
const PREFIXED_ID = /\b[A-Za-z]{1,12}_(?:(?=[A-Za-z0-9]*\d)|(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z]))[A-Za-z0-9]{10,}\b/g;
/** base64 / base64url tokens of 16+ characters mixing capitals, small letters and digits. */
const TOKEN = /(?<![\w+/-])(?=[A-Za-z0-9+/_-]*\d)(?=[A-Za-z0-9+/_-]*[a-z])(?=[A-Za-z0-9+/_-]*[A-Z])[A-Za-z0-9+/_-]{16,}={0,2}(?![\w+/-])/g;
/** A standalone run of 10+ letters and digits in both cases: an id (`YgS7aUoexkjf`) unless it reads as camelCase. */
const MIXED_RUN = /(?<![\w<])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{10,}(?![\w>])/g;
const LOWERCASE_RUNS = /[a-z]+/g;
/** Part and product codes: `4411-BLK-09`, `12-A-7` (numbers around letter codes). */
const PART_CODE = /\b\d+(?:-[A-Z]{1,4})+-\d+\b/g;

const WEEKDAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?';
const CLOCK = String.raw`(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?(?:[AaPp][Mm]))?)?(?:\s?(?:GMT|UTC|Z|[+-]\d{2}:?\d{2}))?`;
/** Dates with month names: `Wed, 12 Jun 2025 08:14:00 GMT`, `Jun 12, 2025`, `12 June 2025`. */
const NAMED_DATE = new RegExp(String.raw`\b(?:${WEEKDAY},?\s+)?(?:\d{1,2}\s+${MONTH}\s+\d{4}|${MONTH}\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})${CLOCK}\b`, 'g');

/** Mixed-case runs that are ids: with a digit, or without a lowercase run of 4 or more (camelCase words have them). */
function mixedRun(match: string): string {
  if (HAS_DIGIT.test(match)) return '<id>';
  const longest = Math.max(...(match.match(LOWERCASE_RUNS) ?? ['']).map((run) => run.length));
  return longest >= 4 ? match : '<id>';
}

const NUMBER = String.raw`\d+(?:[.,]\d+)?`;
const DURATION_UNIT = String.raw`(?:ns|µs|us|ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)`;
const DURATION = new RegExp(
  String.raw`(?<![\w.])(?:(?:\d+(?:h|m|s|ms))+(?=\b)|${NUMBER}\s?${DURATION_UNIT}\b|\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b|P(?:\d+[YMWD])*T(?:\d+(?:\.\d+)?[HMS])+\b)`,
  'g',
);
const SIZE = new RegExp(String.raw`(?<![\w.])${NUMBER}\s?(?:[KMGTPE]i?B|[kmgtp]b|bytes?|B)\b`, 'g');
/** Other units stuck to a number (`10px`, `3x`): the number goes, the unit stays. */
const NUMBER_WITH_UNIT = /(?<![\w.])\d+(?:\.\d+)?(?=[A-Za-z%]{1,3}\b)/g;

function quoted(match: string, ...groups: Array<string | undefined>): string {
  const content = groups.slice(0, 5).find((g) => g !== undefined) ?? '';
  // A path keeps its words (its numbers go with the rest); an identifier is kept whole, if it holds no digit.
  if (!PLACEHOLDER_ONLY.test(content) && (PATH.test(content) || (IDENTIFIER.test(content) && !HAS_DIGIT.test(content) && !LITERALS.has(content)))) return match;
  // One spelling for quoted input, whatever the quotes: Python's repr picks "…" when the text holds a '.
  return "'<str>'";
}

/**
 * Version 1's steps (UUIDs, e-mails, URLs, dates, IPs first; hex, decimals and integers last) with,
 * between them: quoted input `'<str>'`, prefixed ids `<id>`, tokens `<token>`, durations
 * `<duration>`, sizes `<size>`, and numbers before a unit (`<int>px`).
 */
export function parameterizeMessage(value: string): string {
  if (value === '') return value;
  const text = replaceIdentities(value.replace(NAMED_DATE, '<date>'))
    .replace(QUOTED, quoted)
    .replace(PREFIXED_ID, '<id>')
    .replace(TOKEN, '<token>')
    .replace(MIXED_RUN, mixedRun)
    .replace(PART_CODE, '<id>')
    .replace(SIZE, '<size>')
    .replace(DURATION, '<duration>')
    .replace(NUMBER_WITH_UNIT, '<int>');
  return replaceNumbers(text);
}
