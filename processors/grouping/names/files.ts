// File names, version 2: the base name without directories, query string and the content hashes
// bundlers put in names. Version 1 only knew hashes with a digit in them; bundlers write base64url
// and base32 hashes that often have none (Vite `index-oaDGsuMU.js`, `AlertRules--XcCpntA.js`,
// esbuild `chunk-UBTAZZLR.js`), so version 2 also reads the structure of the name: an 8-character
// segment after the stem that does not read as a word.
import { HASH_PLACEHOLDER, isContentHash } from '../legacy/normalize-v1.js';
import { memoize } from '../memo.js';

const QUERY_OR_FRAGMENT = /[?#].*$/s;
const DIRECTORIES = /^.*[/\\]/s;
/** `<stem>-<8 base64url chars>`: the hash may itself start with `-` or hold `_` (Vite, Rollup). */
const STEM_AND_HASH = /^(.*[^-])-([A-Za-z0-9_-]{8})$/;
const EIGHT_CHARS = /^[A-Za-z0-9_-]{8}$/;
const LOWERCASE_WORD = /^[a-z]+$/;
const NOT_A_LETTER = /[^A-Za-z]/;
const UPPERCASE = /[A-Z]/g;
/** Version 1's rule for `-`-separated segments (`app-abc123def456`). */
const DASH_SEGMENTS = /(?=-)/;

/**
 * After `<stem>-`, where Vite, Rollup and esbuild put their hash, 8 base64url characters are one
 * unless they are a lower-case word (`user-settings.js`): `oaDGsuMU`, `-XcCpntA`, `UBTAZZLR`.
 */
export function isBundlerHash(segment: string): boolean {
  return EIGHT_CHARS.test(segment) && !LOWERCASE_WORD.test(segment);
}

/**
 * A whole part of the name (`<hash>.js`) must look more random to be taken for a hash, so that
 * `UserList.js` and `useQuery.js` stay: a digit, `_` or `-`, or three capitals.
 */
function isWholeHash(part: string): boolean {
  if (isContentHash(part)) return true;
  return EIGHT_CHARS.test(part) && (NOT_A_LETTER.test(part) || (part.match(UPPERCASE)?.length ?? 0) >= 3);
}

/** One `.`-separated part of the name without its hashes; '' when the whole part is one. */
function withoutHash(part: string): string {
  if (isWholeHash(part)) return '';
  const stemAndHash = STEM_AND_HASH.exec(part);
  if (stemAndHash && (isContentHash(stemAndHash[2]) || isBundlerHash(stemAndHash[2]))) return withoutHash(stemAndHash[1]) || HASH_PLACEHOLDER;
  const [stem, ...rest] = part.split(DASH_SEGMENTS);
  return stem + rest.filter((segment) => !isContentHash(segment.slice(1))).join('');
}

function normalizeFilenameNow(path: string): string {
  const name = path.trim().replace(QUERY_OR_FRAGMENT, '').replace(DIRECTORIES, '');
  if (name === '') return '';
  const [stem, ...rest] = name.split('.');
  const kept = rest.map(withoutHash).filter((part) => part !== '');
  const head = withoutHash(stem);
  return [head === '' ? HASH_PLACEHOLDER : head, ...kept].join('.');
}

/**
 * `https://cdn.example.com/assets/index-oaDGsuMU.js?v=3` -> `index.js`, `main.4f3a2b1c.js` ->
 * `main.js`, `chunk-UBTAZZLR.js` -> `chunk.js`, `4f3a2b1c.chunk.js` -> `<hash>.chunk.js`;
 * `date-picker.js` and `main-settings.js` keep their words.
 */
export const normalizeFilename: (path: string) => string = memoize(normalizeFilenameNow);
