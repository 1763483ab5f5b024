// The issue search language (`GET /v1/issues?query=`, the web app's search box), Sentry-like:
// `is:resolved assigned:me level:error tags.route:"/api/users" first_seen:>-24h !release:1.0 TypeError`.
// Two pure steps with no I/O, so the module can move to the read side's one filter builder:
// parseSearch scans the text once, left to right (a hand-written scanner: every character is
// looked at a bounded number of times, no regular expression runs over the query), and
// compileSearch turns the terms into SQL conditions over the issue relation whose values are all
// parameters. A bare `<key>:` is a tag key only if the project has seen it: the caller looks up
// bareKeys(terms) and hands the ones that exist to compileSearch.
import type { DuckDBValue } from '@duckdb/node-api';

/** The longest query accepted (characters), and the most terms. */
export const MAX_QUERY_LENGTH = 1024;
export const MAX_TERMS = 40;

/** A query that does not parse or names what does not exist; `position` is the token's offset (0-based). */
export class SearchSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} (at position ${position})`);
    this.name = 'SearchSyntaxError';
  }
}

export interface SearchTerm {
  /** Offset of the term in the query, `!` included. */
  position: number;
  negated: boolean;
  /** Undefined for free text. */
  key?: string;
  value: string;
  /** Where the value starts (its opening quote for a quoted one). */
  valuePosition: number;
}

/** Counts the characters the scanner looked at: the fuzz test checks it stays linear in the length. */
export interface ScanMeter {
  steps: number;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const isKeyStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;

export function parseSearch(query: string, meter: ScanMeter = { steps: 0 }): SearchTerm[] {
  if (query.length > MAX_QUERY_LENGTH) throw new SearchSyntaxError(`the query is longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH);
  const terms: SearchTerm[] = [];
  let i = 0;
  const n = query.length;
  /** Reads a quoted string starting at its quote; backslash escapes the next character. */
  const quoted = (start: number): { value: string; end: number } => {
    let out = '';
    let j = start + 1;
    while (j < n) {
      meter.steps++;
      const c = query.charCodeAt(j);
      if (c === 34) return { value: out, end: j + 1 };
      if (c === 92 && j + 1 < n) {
        out += query[j + 1];
        j += 2;
        continue;
      }
      out += query[j];
      j++;
    }
    throw new SearchSyntaxError('a quoted value is not closed', start);
  };
  /** Reads up to the next whitespace. */
  const word = (start: number): { value: string; end: number } => {
    let j = start;
    while (j < n && !isSpace(query.charCodeAt(j))) {
      meter.steps++;
      j++;
    }
    return { value: query.slice(start, j), end: j };
  };
  while (i < n) {
    meter.steps++;
    if (isSpace(query.charCodeAt(i))) {
      i++;
      continue;
    }
    if (terms.length >= MAX_TERMS) throw new SearchSyntaxError(`a query has at most ${MAX_TERMS} terms`, i);
    const position = i;
    const negated = query.charCodeAt(i) === 33; // '!'
    const keyStart = negated ? i + 1 : i;
    let j = keyStart;
    if (j < n && isKeyStart(query.charCodeAt(j))) {
      while (j < n && isKeyChar(query.charCodeAt(j))) {
        meter.steps++;
        j++;
      }
    }
    if (j > keyStart && j < n && query.charCodeAt(j) === 58) {
      // key:value
      const key = query.slice(keyStart, j).toLowerCase();
      const valuePosition = j + 1;
      if (valuePosition >= n || isSpace(query.charCodeAt(valuePosition))) throw new SearchSyntaxError(`${key}: needs a value`, position);
      const read = query.charCodeAt(valuePosition) === 34 ? quoted(valuePosition) : word(valuePosition);
      if (read.end < n && !isSpace(query.charCodeAt(read.end))) throw new SearchSyntaxError('a quoted value must end its term', read.end);
      terms.push({ position, negated, key, value: read.value, valuePosition });
      i = read.end;
      continue;
    }
    // Free text: a quoted phrase or a word (a leading `!` is part of the text: free text is not negated).
    const read = query.charCodeAt(i) === 34 ? quoted(i) : word(i);
    if (read.end < n && !isSpace(query.charCodeAt(read.end))) throw new SearchSyntaxError('a quoted phrase must end its term', read.end);
    if (read.value !== '') terms.push({ position, negated: false, value: read.value, valuePosition: position });
    i = read.end;
  }
  return terms;
}

/** What a query may refer to beyond its own text. */
export interface SearchContext {
  /** Epoch ms that relative times (`-24h`) count back from. */
  now: number;
  /** The web user `assigned:me` means; undefined where there is none (an API key), which makes `me` an error. */
  me?: string;
  /** Tag keys, among bareKeys(terms), that the project has seen. */
  seenTagKeys: ReadonlySet<string>;
  /** The events relation of the project, for conditions about events (release, environment, tags, users, message). */
  events: string;
}

/**
 * Conditions over the issue relation (columns id, title, culprit, level, status, first_seen,
 * last_seen, count, assignee), to AND together. They use `$dataset` and `$project`, which the
 * caller binds, and their own parameters `$s0`, `$s1`, … in `params`.
 */
export interface CompiledSearch {
  where: string[];
  params: Record<string, DuckDBValue>;
}

const ISSUE_STATUSES = ['unresolved', 'resolved', 'ignored', 'regressed'];
const KNOWN_KEYS = new Set(['is', 'assigned', 'level', 'release', 'environment', 'user.email', 'user.id', 'first_seen', 'last_seen', 'times_seen', 'has']);
const HAS_FIELDS: Record<string, string> = {
  assignee: 'assignee IS NOT NULL',
  release: "release <> ''",
  environment: "environment <> ''",
  user: "(coalesce(user_id, '') <> '' OR coalesce(user_email, '') <> '')",
  'user.email': "coalesce(user_email, '') <> ''",
  'user.id': "coalesce(user_id, '') <> ''",
  message: "coalesce(message, '') <> ''",
};
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const COMPARISONS = ['>=', '<=', '>', '<', '='];
/** How far back a relative time may reach (a century), so every time is one the database can hold. */
const MAX_RELATIVE_MS = 100 * 366 * 86_400_000;

/** Keys of `<key>:` terms that are no known field: the caller checks which are tag keys the project has seen. */
export function bareKeys(terms: SearchTerm[]): string[] {
  const keys = new Set<string>();
  for (const term of terms) {
    if (term.key !== undefined && !KNOWN_KEYS.has(term.key) && !term.key.startsWith('tags.')) keys.add(term.key);
    if (term.key === 'has' && !(term.value in HAS_FIELDS) && !term.value.startsWith('tags.')) keys.add(term.value);
  }
  return [...keys];
}

export function compileSearch(terms: SearchTerm[], ctx: SearchContext): CompiledSearch {
  const params: Record<string, DuckDBValue> = {};
  const where: string[] = [];
  const param = (value: DuckDBValue) => {
    const name = `s${Object.keys(params).length}`;
    params[name] = value;
    return `$${name}`;
  };
  const onEvents = (condition: string) => `id IN (SELECT issue_id FROM ${ctx.events} WHERE dataset = $dataset AND project_id = $project AND ${condition})`;
  const tagPath = (key: string) => param(`$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`);
  const add = (term: SearchTerm, condition: string) => where.push(term.negated ? `NOT coalesce((${condition}), false)` : condition);

  for (const term of terms) {
    const { key, value } = term;
    if (key === undefined) {
      const pattern = param(`%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`(title ILIKE ${pattern} ESCAPE '\\' OR culprit ILIKE ${pattern} ESCAPE '\\' OR ${onEvents(`message ILIKE ${pattern} ESCAPE '\\'`)})`);
      continue;
    }
    const bad = (message: string): never => {
      throw new SearchSyntaxError(message, term.valuePosition);
    };
    switch (key) {
      case 'is':
        if (ISSUE_STATUSES.includes(value)) add(term, `status = ${param(value)}`);
        else if (value === 'assigned' || value === 'unassigned') add(term, `assignee IS ${value === 'assigned' ? 'NOT ' : ''}NULL`);
        else bad(`is: takes ${[...ISSUE_STATUSES, 'assigned', 'unassigned'].join(', ')}`);
        break;
      case 'assigned':
        if (value === 'none') add(term, 'assignee IS NULL');
        else if (value === 'me') {
          if (ctx.me === undefined) bad('assigned:me needs a signed-in user; an API key has none (name the email)');
          add(term, `assignee.id = ${param(ctx.me ?? '')}`);
        } else if (value.includes('@')) add(term, `lower(assignee.email) = ${param(value.toLowerCase())}`);
        else bad('assigned: takes me, none or an email');
        break;
      case 'level':
        add(term, `level = ${param(value.toLowerCase())}`);
        break;
      case 'release':
      case 'environment':
        add(term, onEvents(`${key} = ${param(value)}`));
        break;
      case 'user.email':
        add(term, onEvents(`lower(user_email) = ${param(value.toLowerCase())}`));
        break;
      case 'user.id':
        add(term, onEvents(`user_id = ${param(value)}`));
        break;
      case 'first_seen':
      case 'last_seen': {
        const { op, rest } = comparison(value);
        const at = timeOf(rest, ctx.now) ?? bad(`${key}: takes a time like >-24h, <2026-11-01 or >=2026-11-01T10:00:00Z`);
        add(term, `${key} ${op ?? '>='} make_timestamp(${param(BigInt(at) * 1000n)}::BIGINT)`);
        break;
      }
      case 'times_seen': {
        const { op, rest } = comparison(value);
        if (!/^\d{1,15}$/.test(rest)) bad('times_seen: takes a count like >10 or <=3');
        add(term, `count ${op ?? '='} ${param(BigInt(rest))}::BIGINT`);
        break;
      }
      case 'has':
        if (value in HAS_FIELDS) add(term, value === 'assignee' ? HAS_FIELDS[value] : onEvents(HAS_FIELDS[value]));
        else if (value.startsWith('tags.') && value.length > 5) add(term, onEvents(`json_extract_string(tags, ${tagPath(value.slice(5))}) IS NOT NULL`));
        else if (ctx.seenTagKeys.has(value)) add(term, onEvents(`json_extract_string(tags, ${tagPath(value)}) IS NOT NULL`));
        else bad(`has: takes ${Object.keys(HAS_FIELDS).join(', ')}, tags.<key> or a tag key the project has seen`);
        break;
      default:
        if (key.startsWith('tags.') && key.length > 5) add(term, onEvents(`json_extract_string(tags, ${tagPath(key.slice(5))}) = ${param(value)}`));
        else if (ctx.seenTagKeys.has(key)) add(term, onEvents(`json_extract_string(tags, ${tagPath(key)}) = ${param(value)}`));
        else throw new SearchSyntaxError(`unknown key ${key}: neither a field nor a tag key this project has seen`, term.position);
    }
  }
  return { where, params };
}

/** `>=x` → {op: '>=', rest: 'x'}; no operator → {rest: value}. */
function comparison(value: string): { op?: string; rest: string } {
  for (const op of COMPARISONS) if (value.startsWith(op)) return { op, rest: value.slice(op.length) };
  return { rest: value };
}

/** `-24h` (now minus that), or an ISO 8601 date or date-time; undefined when it is neither. */
function timeOf(text: string, now: number): number | undefined {
  if (text.length >= 3 && text.length <= 12 && text[0] === '-') {
    const amount = text.slice(1, -1);
    const unit = UNIT_MS[text[text.length - 1]];
    const span = unit !== undefined && /^\d{1,9}$/.test(amount) ? Number(amount) * unit : Infinity;
    return span <= MAX_RELATIVE_MS ? now - span : undefined;
  }
  if (text.length > 35 || !/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
  const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  return Number.isNaN(ms) ? undefined : ms;
}
