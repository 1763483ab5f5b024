// Globs for grouping rules, compiled once (at config load) to an automaton (glob-machine.ts)
// whose time is linear in the value: the values are what senders write.
//
// The rule syntax has two kinds of glob, as Sentry's does:
// - text globs (function, module, type, value, message, level, release, tags): `*` matches any run
//   of characters, `/` and newlines included (`**` means the same), `?` one character;
// - path globs (path, package): case-insensitive, `\` is read as `/`, `*` and `?` stay within one
//   path segment and `**` crosses segments.
// Both support `[abc]`, `[a-z]`, `[!a]` / `[^a]`. Every other character is literal: braces,
// parentheses, `+`, `@`, `!`, `$`, `\`, `.`… A literal `*`, `?` or `[` is written `[*]`, `[?]`, `[[]`.
import { GlobMachine, type GlobToken } from './glob-machine.js';
import { ValueError } from './syntax.js';

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

const SLASH = 0x2f;

/** A bracket expression's body as a test of one character; `]` first is a member, as in POSIX. */
function bracket(body: string, caseInsensitive: boolean, path: boolean): (code: number) => boolean {
  const negated = body.startsWith('^');
  let members = negated ? body.slice(1) : body;
  members = members.replace(/\\/g, '\\\\');
  if (members.startsWith(']')) members = `\\${members}`;
  let regex: RegExp;
  try {
    regex = new RegExp(`^[${negated ? '^' : ''}${members}]$`, caseInsensitive ? 'i' : '');
  } catch {
    throw new ValueError('invalid bracket expression');
  }
  return path ? (code) => code !== SLASH && regex.test(String.fromCharCode(code)) : (code) => regex.test(String.fromCharCode(code));
}

function literal(char: string): (code: number) => boolean {
  const expected = char.charCodeAt(0);
  return (code) => code === expected;
}

/**
 * What a cheap test can tell before the automaton runs: a pattern of literal characters only (then
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

/**
 * A glob of literal runs and `*` (the usual kind: `*Proxy*`, `connection*refused`): the first run
 * is a prefix, the last a suffix, and each run between is found leftmost after the one before.
 */
function starsAndLiterals(list: readonly Piece[], caseInsensitive: boolean): ((value: string) => boolean) | undefined {
  const runs = [''];
  for (const piece of list) {
    if (piece.kind === 'star') runs.push('');
    else if (piece.kind === 'literal') runs[runs.length - 1] += caseInsensitive ? piece.char.toLowerCase() : piece.char;
    else return undefined;
  }
  if (runs.length < 2) return undefined;
  const first = runs[0];
  const last = runs[runs.length - 1];
  const middle = runs.slice(1, -1).filter((run) => run !== '');
  return (received) => {
    const value = caseInsensitive ? received.toLowerCase() : received;
    const end = value.length - last.length;
    if (end < first.length || !value.startsWith(first) || !value.endsWith(last)) return false;
    let at = first.length;
    for (const run of middle) {
      const found = value.indexOf(run, at);
      if (found < 0 || found + run.length > end) return false;
      at = found + run.length;
    }
    return true;
  };
}

/** A compiled text glob: `*` crosses everything. */
export function compileTextGlob(pattern: string, caseInsensitive: boolean): (value: string) => boolean {
  const list = pieces(pattern);
  const simple = starsAndLiterals(list, caseInsensitive);
  if (simple !== undefined) return simple;
  const tokens: GlobToken[] = list.map((piece) => {
    if (piece.kind === 'star') return { kind: 'star', crossesSlash: true };
    if (piece.kind === 'one') return { kind: 'char', matches: () => true };
    if (piece.kind === 'class') return { kind: 'char', matches: bracket(piece.body, caseInsensitive, false) };
    return { kind: 'char', matches: literal(caseInsensitive ? piece.char.toLowerCase() : piece.char) };
  });
  const machine = new GlobMachine(tokens);
  if (caseInsensitive) return (value) => machine.matches(value.toLowerCase());
  const { exact, needle } = literals(list, false);
  if (exact !== undefined) return (value) => value === exact;
  return needle ? (value) => value.includes(needle) && machine.matches(value) : (value) => machine.matches(value);
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

/** Whether `segments` holds `run` from `from` on; the first index where it does, or -1. */
function indexOfRun(segments: readonly string[], run: readonly string[], from: number, end: number): number {
  for (let i = from; i + run.length <= end; i++) {
    let j = 0;
    while (j < run.length && segments[i + j] === run[j]) j++;
    if (j === run.length) return i;
  }
  return -1;
}

/**
 * A path glob of literal segments and whole-segment `**` only (`/src/**`, and the `node_modules` and `vendor` rules):
 * the first run of segments is a prefix, the last a suffix, each between found leftmost after the one before.
 */
function literalSegments(normalized: string, list: readonly Piece[]): PathGlob['test'] | undefined {
  if (list.some((piece) => piece.kind === 'one' || piece.kind === 'class')) return undefined;
  const runs: string[][] = [[]];
  for (const segment of normalized.split('/')) {
    if (segment === '**') runs.push([]);
    else if (segment.includes('*')) return undefined;
    else runs[runs.length - 1].push(segment);
  }
  if (runs.length < 2) return undefined;
  const first = runs[0];
  const last = runs[runs.length - 1];
  const middle = runs.slice(1, -1).filter((run) => run.length > 0);
  return (value) => {
    const segments = value.split('/');
    const end = segments.length - last.length;
    if (end < first.length || indexOfRun(segments, first, 0, first.length) !== 0 || indexOfRun(segments, last, end, segments.length) !== end) return false;
    let at = first.length;
    for (const run of middle) {
      const found = indexOfRun(segments, run, at, end);
      if (found < 0) return false;
      at = found + run.length;
    }
    return true;
  };
}

export function compilePathGlob(pattern: string): PathGlob {
  const normalized = normalizePathPattern(pattern);
  // A `**` that shares its segment with other characters (`**.js`, `lib**`, `a**b`) crosses `/` as
  // in Sentry: it is any run. A whole-segment `**` is any number of segments, the `/` beside it
  // included (`a/**/b` matches `a/b`).
  let crossing = false;
  const list = pieces(normalized);
  const isSlash = (piece: Piece | undefined) => piece !== undefined && piece.kind === 'literal' && piece.char === '/';
  const tokens: GlobToken[] = [];
  /** Where the last token is a literal `/` (the one a trailing `/**` takes in). */
  let slashToken = -1;
  for (let index = 0; index < list.length; index++) {
    const piece = list[index];
    if (piece.kind === 'star') {
      const atStart = index === 0 || isSlash(list[index - 1]);
      const atEnd = index === list.length - 1 || isSlash(list[index + 1]);
      crossing ||= piece.double && !(atStart && atEnd);
      if (!piece.double) tokens.push({ kind: 'star', crossesSlash: false });
      else if (!(atStart && atEnd)) tokens.push({ kind: 'star', crossesSlash: true });
      else if (isSlash(list[index + 1])) {
        tokens.push({ kind: 'segments' });
        index++;
      } else if (slashToken === tokens.length - 1 && slashToken >= 0) {
        tokens[slashToken] = { kind: 'tail' };
      } else tokens.push({ kind: 'star', crossesSlash: true });
    } else if (piece.kind === 'one') tokens.push({ kind: 'char', matches: (code) => code !== SLASH });
    else if (piece.kind === 'class') tokens.push({ kind: 'char', matches: bracket(piece.body, false, true) });
    else {
      if (piece.char === '/') slashToken = tokens.length;
      tokens.push({ kind: 'char', matches: literal(piece.char) });
    }
  }
  const hasSlash = crossing || normalized.includes('/');
  const { exact, needle } = literals(list, true);
  if (exact !== undefined) return { hasSlash, test: (value) => value === exact };
  const machine = new GlobMachine(tokens);
  const match = literalSegments(normalized, list) ?? ((value: string) => machine.matches(value));
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
