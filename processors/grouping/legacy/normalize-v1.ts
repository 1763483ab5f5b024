// Grouping version 1's normalization, frozen (see v1.ts). Normalization used by grouping: everything here strips what changes between builds, deploys or
// occurrences of "the same" error (paths, bundle hashes, line numbers, ids in messages) while
// keeping what identifies it. All regexes are compiled once at module load.
import { isIPv4, isIPv6 } from 'node:net';
import { memoize } from '../memo.js';

// ---------------------------------------------------------------------------------------------
// File names
// ---------------------------------------------------------------------------------------------

const QUERY_OR_FRAGMENT = /[?#].*$/s;
const DIRECTORIES = /^.*[/\\]/s;
/** Splits `app-abc123def456.min.js` into `app`, `-abc123def456`, `.min`, `.js`. */
const NAME_SEGMENTS = /(?=[.-])/;
const HEX_RUN = /^[0-9a-f]{6,}$/i;
const BASE36_RUN = /^[0-9a-z]{8,}$/i;
const HAS_DIGIT = /\d/;

/** The placeholder for a file name whose stem is itself a content hash (`4f3a2b1c.js`). */
export const HASH_PLACEHOLDER = '<hash>';

/**
 * A content hash in a bundle name: a run of >= 6 hex chars or >= 8 base36 chars, containing at
 * least one digit (so words such as `facade` or `protobuf` are never taken for hashes).
 */
export function isContentHash(segment: string): boolean {
  if (!HAS_DIGIT.test(segment)) return false;
  return HEX_RUN.test(segment) || BASE36_RUN.test(segment);
}

/**
 * The base name of a path or URL without query string, fragment or content hashes:
 * `https://cdn.example.com/static/js/main.4f3a2b1c.js?v=3` -> `main.js`,
 * `C:\app\chunk-5F2A9B7C.js` -> `chunk.js`, `app-abc123def456.min.js` -> `app.min.js`.
 * A stem that is itself a hash becomes `<hash>` (`4f3a2b1c.chunk.js` -> `<hash>.chunk.js`).
 */
export const normalizeFilename: (path: string) => string = memoize(normalizeFilenameNow);

function normalizeFilenameNow(path: string): string {
  const name = path.trim().replace(QUERY_OR_FRAGMENT, '').replace(DIRECTORIES, '');
  if (name === '') return '';
  const segments = name.split(NAME_SEGMENTS);
  let out = isContentHash(segments[0]) ? HASH_PLACEHOLDER : segments[0];
  for (let i = 1; i < segments.length; i++) {
    // Each later segment starts with its separator (`.` or `-`).
    if (!isContentHash(segments[i].slice(1))) out += segments[i];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Function names
// ---------------------------------------------------------------------------------------------

/** What a frame's function becomes when it is anonymous: it still counts toward grouping. */
export const ANONYMOUS = '?';
/** What V8's `Object.<anonymous>` (top-level module code in Node) becomes. */
export const MODULE_CODE = '<module>';

const WHITESPACE_RUN = /\s+/g;
const ASYNC_OR_NEW_PREFIX = /^(?:(?:async|new)\s+|async\*)+/;
const V8_MODULE_CODE = /^(?:Object|Module)\.<anonymous>$/;
const ANONYMOUS_MARKER = /<anonymous(?: function)?>|\{anonymous\}|\banonymous function\b/gi;
const WEBPACK_IMPORT = /__WEBPACK_IMPORTED_MODULE_\d+__/g;
const WEBPACK_IMPORT_CALL = /^\(0,\s*([^()]+)\)$|^Object\(([^()]+)\)$/;
/** Rollup/esbuild de-duplication suffixes: `render$1`, `render$$2` -> `render`. */
const BUNDLER_SUFFIX = /(?<=[A-Za-z0-9_])\$+\d+(?![A-Za-z0-9_$])/g;

/**
 * A function name reduced to what is stable across builds. Returns `?` for anonymous functions,
 * `<module>` for V8's `Object.<anonymous>`, and `undefined` when there is no name at all.
 */
export function normalizeFunction(name: string | undefined): string | undefined {
  return name === undefined ? undefined : rememberedFunction(name);
}

const rememberedFunction = memoize(normalizeFunctionNow);

function normalizeFunctionNow(name: string): string | undefined {
  let fn = name.replace(WHITESPACE_RUN, ' ').trim();
  if (fn === '') return undefined;
  fn = fn.replace(ASYNC_OR_NEW_PREFIX, '').trim();
  if (V8_MODULE_CODE.test(fn)) return MODULE_CODE;
  fn = fn.replace(WEBPACK_IMPORT, '');
  const call = WEBPACK_IMPORT_CALL.exec(fn);
  if (call) fn = (call[1] ?? call[2]).trim();
  fn = fn.replace(BUNDLER_SUFFIX, '');
  fn = fn.replace(ANONYMOUS_MARKER, ANONYMOUS).replace(WHITESPACE_RUN, ' ').trim();
  return fn === '' ? ANONYMOUS : fn;
}

// ---------------------------------------------------------------------------------------------
// Exception values
// ---------------------------------------------------------------------------------------------

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const EMAIL = /(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g;
const URL_CANDIDATE = /\bhttps?:\/\/[^\s"'`]+/gi;
/** Punctuation that ends a sentence rather than a URL: `see https://x.io/a.` -> `see <url>.` */
const URL_TRAILING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', "'", '"', ')', ']', '}', '>']);
/** Placeholders already put into a URL (`https://x.io/u/<uuid>`) stay part of it. */
const URL_PLACEHOLDERS = ['<uuid>', '<email>'];
const ISO_DATE =
  /\b\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])(?:[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?(?![\w:])/g;
const IPV4_CANDIDATE = /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)/g;
const IPV6_CANDIDATE = /(?<![\w:.])(?:[0-9a-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{1,4})?(?![\w:]|\.\d)/gi;
const HEX_LITERAL = /\b0x[0-9a-f]+\b/gi;
const HEX_RUN_IN_TEXT = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi;
const FLOAT = /\b\d+\.\d+\b/g;
const INT = /\b\d+\b/g;

function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0 && URL_TRAILING_PUNCTUATION.has(url[end - 1]) && !URL_PLACEHOLDERS.some((p) => end >= p.length && url.startsWith(p, end - p.length))) {
    end--;
  }
  return '<url>' + url.slice(end);
}

/**
 * Replaces the variable parts of an exception value with placeholders, in this order:
 * UUIDs `<uuid>`, e-mail addresses `<email>`, http(s) URLs `<url>`, ISO 8601 dates and date-times
 * `<date>`, IPv6 and IPv4 addresses `<ip>` (IPv6 candidates must contain a digit, so `A::B` stays), hex numbers (`0x…`, and runs of >= 8 hex chars with
 * at least one digit and one letter) `<hex>`, decimals `<float>` and integers `<int>`.
 * `User 123 not found` -> `User <int> not found`.
 */
export function parameterize(value: string): string {
  if (value === '') return value;
  return replaceNumbers(replaceIdentities(value));
}

/** The first steps: UUIDs, e-mail addresses, URLs, dates and IP addresses (version 2 reuses them). */
export function replaceIdentities(value: string): string {
  return (
    value
      .replace(UUID, '<uuid>')
      .replace(EMAIL, '<email>')
      .replace(URL_CANDIDATE, trimUrl)
      .replace(ISO_DATE, '<date>')
      // IPv6 first, so that `::ffff:192.0.2.1` is one address rather than `::ffff:<ip>`.
      .replace(IPV6_CANDIDATE, (m) => (HAS_DIGIT.test(m) && isIPv6(m) ? '<ip>' : m))
      .replace(IPV4_CANDIDATE, (m) => (isIPv4(m) ? '<ip>' : m))
  );
}

/** The last steps: hex numbers, decimals and integers (version 2 reuses them). */
export function replaceNumbers(value: string): string {
  return value.replace(HEX_LITERAL, '<hex>').replace(HEX_RUN_IN_TEXT, '<hex>').replace(FLOAT, '<float>').replace(INT, '<int>');
}
