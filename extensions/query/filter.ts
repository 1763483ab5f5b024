// The one filter-to-SQL builder over the events' read layout (src/records/event-row.ts): every
// read that filters events — the event list, the issue list's event filters, an alert window's
// rebuild — turns its conditions into SQL here. Values are bound as named parameters, never
// spliced into the text; each condition of a list must hold (two different values match nothing).
import type { DuckDBValue } from '@duckdb/node-api';
import type { ParsedQuery } from './query-syntax.js';

export interface EventConditions {
  environment?: string[];
  release?: string[];
  issueId?: string[];
  level?: string[];
  userId?: string[];
  userEmail?: string[];
  traceId?: string[];
  /** `tags.<key>:<value>`: the tag must have the value. */
  tags?: Array<[key: string, value: string]>;
  /** Free-text terms, each matched (case-insensitively, as a substring) against type, value or message. */
  text?: string[];
  /** Inclusive lower bound on the event's timestamp, epoch ms. */
  start?: number;
  /** Exclusive upper bound on the event's timestamp, epoch ms. */
  end?: number;
}

const COLUMNS: Array<[keyof EventConditions, string]> = [
  ['environment', 'environment'],
  ['release', 'release'],
  ['issueId', 'issue_id'],
  ['level', 'level'],
  ['userId', 'user_id'],
  ['userEmail', 'user_email'],
  ['traceId', 'trace_id'],
];

/** Binds `value` to a parameter name not yet in `params` (`f0`, `f1`, …) and returns it with its `$`. */
function bind(params: Record<string, DuckDBValue>, value: DuckDBValue): string {
  let n = 0;
  while (`f${n}` in params) n++;
  params[`f${n}`] = value;
  return `$f${n}`;
}

/** The conditions as SQL over a relation in the events' read layout, their values added to `params`. */
export function eventConditions(conditions: EventConditions, params: Record<string, DuckDBValue>): string[] {
  const where: string[] = [];
  for (const [field, column] of COLUMNS)
    for (const value of (conditions[field] as string[] | undefined) ?? []) where.push(`${column} = ${bind(params, value)}`);
  if (conditions.start !== undefined) where.push(`timestamp >= make_timestamp(${bind(params, BigInt(conditions.start) * 1000n)}::BIGINT)`);
  if (conditions.end !== undefined) where.push(`timestamp < make_timestamp(${bind(params, BigInt(conditions.end) * 1000n)}::BIGINT)`);
  for (const [key, value] of conditions.tags ?? []) {
    const path = bind(params, `$."${key.replace(/["\\]/g, (c) => `\\${c}`)}"`);
    where.push(`json_extract_string(tags, ${path}) = ${bind(params, value)}`);
  }
  for (const term of conditions.text ?? []) {
    const pattern = bind(params, `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(exception_type ILIKE ${pattern} ESCAPE '\\' OR exception_value ILIKE ${pattern} ESCAPE '\\' OR message ILIKE ${pattern} ESCAPE '\\')`);
  }
  return where;
}

/**
 * The conditions of a search (`query`, parsed) together with the ones given beside it (a list's
 * own environment, release, level and issue filters): both must hold.
 */
export function searchConditions(
  search: ParsedQuery,
  given: { environment?: string; release?: string; level?: string; issueId?: string; start?: number; end?: number } = {},
): EventConditions {
  const all = (...values: Array<string | undefined>) => {
    const set = values.filter((v): v is string => v !== undefined);
    return set.length ? set : undefined;
  };
  return {
    environment: all(given.environment, search.environment),
    release: all(given.release, search.release),
    issueId: all(given.issueId),
    level: all(given.level, search.level),
    userId: all(search.userId),
    userEmail: all(search.userEmail),
    traceId: all(search.traceId),
    tags: search.tags,
    text: search.text,
    start: given.start,
    end: given.end,
  };
}
