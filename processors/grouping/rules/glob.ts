// Globs for grouping rules, compiled once (at config load) to a RegExp by picomatch.
//
// The rule syntax has two kinds of glob, as Sentry's does:
// - text globs (function, module, type, value, message, level, release, tags): `*` matches any run
//   of characters, `/` and newlines included (`**` means the same), `?` one character;
// - path globs (path, package): case-insensitive, `\` is read as `/`, `*` and `?` stay within one
//   path segment and `**` crosses segments.
// Both support `[abc]`, `[a-z]`, `[!a]` / `[^a]`. Every other character is literal: braces,
// parentheses, `+`, `@`, `!`, `$`, `\`, `.`… A literal `*`, `?` or `[` is written `[*]`, `[?]`, `[[]`.
//
// picomatch is made for paths, so text globs are fed to it with `/` swapped for a character that
// is not a separator (in the pattern here, in the value at match time), and every literal
// character is escaped so that picomatch's own extensions (extglobs, braces, negation) never apply.
import picomatch from 'picomatch/posix.js';
import { ValueError } from './syntax.js';

/** Stands for `/` in text globs and the values they are matched against. A private-use code point. */
const SLASH = '\uE000';

/** What picomatch is told: dotfiles are not special, and only `*`, `**`, `?` and `[…]` are glob syntax. */
const OPTIONS = { dot: true, nobrace: true, noextglob: true, nonegate: true, fastpaths: false } as const;

/** At most this many `**` inside a path segment (`**.js`, `a**b`): each doubles the regexes to try. */
const MAX_INNER_GLOBSTARS = 3;

type Piece = { kind: 'literal'; char: string } | { kind: 'star'; double: boolean } | { kind: 'one' } | { kind: 'class'; body: string };

/** Splits a glob into literal characters, stars, `?` and bracket expressions. */
function pieces(pattern: string): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*') {
      let end = i;
      while (pattern[end + 1] === '*') end++;
      out.push({ kind: 'star', double: end > i });
      i = end;
    } else if (char === '?') {
      out.push({ kind: 'one' });
    } else if (char === '[') {
      // `]` right after `[` or `[!` is a member, as in POSIX; no closing `]` makes `[` literal.
      let j = i + 1;
      if (pattern[j] === '!' || pattern[j] === '^') j++;
      if (pattern[j] === ']') j++;
      const close = pattern.indexOf(']', j);
      if (close < 0) {
        out.push({ kind: 'literal', char });
        continue;
      }
      let body = pattern.slice(i + 1, close);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      out.push({ kind: 'class', body });
      i = close;
    } else {
      out.push({ kind: 'literal', char });
    }
  }
  return out;
}

/** ASCII punctuation is escaped for picomatch; letters, digits and the rest are literal as they are. */
function literal(char: string): string {
  return /[!-/:-@[-`{-~]/.test(char) ? `\\${char}` : char;
}

function bracket(body: string): string {
  // Inside a class only `\` needs care: it stays a literal backslash.
  return `[${body.replace(/\\/g, '\\\\')}]`;
}

function regexOf(source: string, caseInsensitive: boolean): RegExp {
  const regex = picomatch.makeRe(source, { ...OPTIONS, flags: caseInsensitive ? 'is' : 's' });
  // picomatch answers a pattern that is no valid regex (`[z-a]`) with one that never matches.
  if (regex.source === '$^') throw new ValueError('invalid bracket expression');
  return regex;
}

/**
 * What a cheap test can tell before the regex runs: a pattern of literal characters only (then
 * equality decides), else its longest run of literal characters, which every match contains.
 * In a path, `/` ends a run, because a `/` next to a globstar may match nothing.
 */
function literals(list: readonly Piece[], slashEndsRun: boolean): { exact: string | undefined; needle: string } {
  let needle = '';
  let run = '';
  let exact: string | undefined = '';
  for (const piece of list) {
    if (piece.kind === 'literal' && !(slashEndsRun && piece.char === '/')) {
      run += piece.char;
      if (run.length > needle.length) needle = run;
    } else run = '';
    if (piece.kind === 'literal') exact = exact === undefined ? undefined : exact + piece.char;
    else exact = undefined;
  }
  return { exact, needle };
}

/** A compiled text glob: `*` crosses everything. */
export function compileTextGlob(pattern: string, caseInsensitive: boolean): (value: string) => boolean {
  const list = pieces(pattern);
  let source = '';
  for (const piece of list) {
    if (piece.kind === 'star') source += '*';
    else if (piece.kind === 'one') source += '?';
    else if (piece.kind === 'class') source += bracket(piece.body);
    else source += piece.char === '/' ? literal(SLASH) : literal(piece.char);
  }
  const regex = regexOf(source, caseInsensitive);
  const match = (value: string) => regex.test(value.includes('/') ? value.replaceAll('/', SLASH) : value);
  if (caseInsensitive) return match;
  const { exact, needle } = literals(list, false);
  if (exact !== undefined) return (value) => value === exact;
  return needle ? (value) => value.includes(needle) && match(value) : match;
}

/** A path glob in its matching form: lowercase, `/` separators, no `./` prefix or empty segments. */
function normalizePathPattern(pattern: string): string {
  return pattern
    .toLowerCase()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .replace(/^(\.\/)+/, '');
}

/**
 * A compiled path glob, for values normalized by `normalizePath`. `hasSlash` says whether the
 * pattern names a path (it has a `/`, or a `**` that crosses them: it is then matched against the
 * whole path) or only a file name (matched against the last segment).
 */
export interface PathGlob {
  readonly hasSlash: boolean;
  test(value: string): boolean;
}

export function compilePathGlob(pattern: string): PathGlob {
  const normalized = normalizePathPattern(pattern);
  // A `**` that shares its segment with other characters (`**.js`, `lib**`, `a**b`) crosses `/` as
  // in Sentry; picomatch does that only for a whole-segment `**`, so such a `**` becomes `**/*`
  // at the start of a segment, and is otherwise tried both as `*` (no `/` crossed) and as
  // `*/**` or `*/**/*` (one or more crossed).
  let variants = [''];
  let crossing = false;
  const list = pieces(normalized);
  const boundary = (piece: Piece | undefined) => !piece || (piece.kind === 'literal' && piece.char === '/');
  let inner = 0;
  list.forEach((piece, index) => {
    let alternatives: string[];
    if (piece.kind === 'star') {
      const atStart = boundary(list[index - 1]);
      const atEnd = boundary(list[index + 1]);
      if (!piece.double) alternatives = ['*'];
      else if (atStart && atEnd) alternatives = ['**'];
      else if (atStart) alternatives = ['**/*'];
      else {
        if (++inner > MAX_INNER_GLOBSTARS)
          throw new ValueError(`at most ${MAX_INNER_GLOBSTARS} "**" may follow other characters in a path segment (write lib*/** rather than lib**)`);
        alternatives = atEnd ? ['*', '*/**'] : ['*', '*/**/*'];
      }
      crossing ||= piece.double && !(atStart && atEnd);
    } else if (piece.kind === 'one') alternatives = ['?'];
    else if (piece.kind === 'class') alternatives = [bracket(piece.body)];
    else alternatives = [piece.char === '/' ? '/' : literal(piece.char)];
    variants = variants.flatMap((prefix) => alternatives.map((alternative) => prefix + alternative));
  });
  const regexes = variants.map((source) => regexOf(source, false));
  const hasSlash = crossing || normalized.includes('/');
  const { exact, needle } = literals(list, true);
  if (exact !== undefined) return { hasSlash, test: (value) => value === exact };
  const [first] = regexes;
  const match = regexes.length === 1 ? (value: string) => first.test(value) : (value: string) => regexes.some((regex) => regex.test(value));
  return { hasSlash, test: needle ? (value) => value.includes(needle) && match(value) : match };
}

const URL_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/;
const DOT_OR_EMPTY_SEGMENT = /(^|\/)\.{1,2}(\/|$)|\/\//;

/**
 * A path (abs_path, filename, package) in the form path globs match: lowercase, `/` separators, a
 * URL's scheme, host, query and fragment removed (`https://cdn.example/js/app.js?v=3` →
 * `/js/app.js`, `webpack:///./src/x.js` → `/src/x.js`), `.` and `..` segments resolved
 * (a leading `..` that cannot be resolved is dropped) and repeated `/` collapsed.
 */
export function normalizePath(raw: string): string {
  let path = raw.toLowerCase();
  if (path.includes('\\')) path = path.replace(/\\/g, '/');
  const origin = URL_ORIGIN.exec(path);
  if (origin) {
    path = path.slice(origin[0].length);
    const end = path.search(/[?#]/);
    if (end >= 0) path = path.slice(0, end);
  }
  if (!DOT_OR_EMPTY_SEGMENT.test(path)) return path;
  const absolute = path.startsWith('/');
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return (absolute ? '/' : '') + segments.join('/');
}

/** The last segment of a normalized path. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
