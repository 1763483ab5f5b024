// The one filter-to-SQL builder (extensions/query/filter.ts) against a real DuckDB table in the
// events' read layout: each condition selects what it says, values (quotes, wildcards, JSON path
// characters) are bound and never spliced, and a search plus the list's own filters must all hold.
import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventConditions, searchConditions, type EventConditions, parseQuery } from '../../extensions/query/index.js';

let instance: DuckDBInstance;
let db: DuckDBConnection;

const ROWS: Array<Record<string, string | null>> = [
  {
    id: 'a',
    environment: 'production',
    release: '1.0',
    issue_id: 'i1',
    level: 'error',
    user_id: 'u1',
    user_email: 'a@x.io',
    trace_id: 't1',
    tags: '{"route":"/api/users","browser":"Firefox"}',
    exception_type: 'TypeError',
    exception_value: "x is 100% 'broken'",
    message: '',
    timestamp: '2026-01-01 10:00:00',
  },
  {
    id: 'b',
    environment: 'staging',
    release: '1.0',
    issue_id: 'i1',
    level: 'warning',
    user_id: 'u2',
    user_email: 'b@x.io',
    trace_id: 't2',
    tags: '{"route":"/api/orders","we\\"ird":"yes"}',
    exception_type: 'RangeError',
    exception_value: 'out of range',
    message: 'under_score',
    timestamp: '2026-01-01 11:00:00',
  },
  {
    id: 'c',
    environment: 'production',
    release: '2.0',
    issue_id: 'i2',
    level: 'error',
    user_id: null,
    user_email: null,
    trace_id: null,
    tags: null,
    exception_type: 'Error',
    exception_value: 'boom',
    message: 'underXscore',
    timestamp: '2026-01-02 09:00:00',
  },
];

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
  await db.run(`CREATE TABLE events (id VARCHAR, environment VARCHAR, release VARCHAR, issue_id VARCHAR, level VARCHAR, user_id VARCHAR, user_email VARCHAR,
    trace_id VARCHAR, tags VARCHAR, exception_type VARCHAR, exception_value VARCHAR, message VARCHAR, timestamp TIMESTAMP)`);
  for (const row of ROWS)
    await db.run(
      `INSERT INTO events VALUES (${Object.keys(row)
        .map(() => '?')
        .join(', ')})`,
      Object.values(row) as DuckDBValue[],
    );
});

afterAll(() => {
  db?.closeSync();
  instance?.closeSync();
});

async function matching(conditions: EventConditions): Promise<string[]> {
  const params: Record<string, DuckDBValue> = { unrelated: 'kept' };
  const where = eventConditions(conditions, params);
  expect(params.unrelated).toBe('kept');
  const result = await db.runAndReadAll(`SELECT id FROM events WHERE ${[...where, "$unrelated = 'kept'"].join(' AND ')} ORDER BY id`, params);
  return result.getRows().map(([id]) => String(id));
}

describe('eventConditions', () => {
  it('filters each column by equality, and every value of a list must hold', async () => {
    expect(await matching({})).toEqual(['a', 'b', 'c']);
    expect(await matching({ environment: ['production'] })).toEqual(['a', 'c']);
    expect(await matching({ environment: ['production'], release: ['1.0'] })).toEqual(['a']);
    expect(await matching({ environment: ['production', 'staging'] })).toEqual([]);
    expect(await matching({ issueId: ['i1'], level: ['warning'] })).toEqual(['b']);
    expect(await matching({ userId: ['u1'], userEmail: ['a@x.io'], traceId: ['t1'] })).toEqual(['a']);
  });

  it('bounds the timestamp: start inclusive, end exclusive', async () => {
    const at = (s: string) => Date.parse(`${s}Z`);
    expect(await matching({ start: at('2026-01-01T11:00:00') })).toEqual(['b', 'c']);
    expect(await matching({ end: at('2026-01-01T11:00:00') })).toEqual(['a']);
    expect(await matching({ start: at('2026-01-01T10:00:00'), end: at('2026-01-02T00:00:00') })).toEqual(['a', 'b']);
  });

  it('matches tags by key, including keys with quotes', async () => {
    expect(await matching({ tags: [['route', '/api/users']] })).toEqual(['a']);
    expect(await matching({ tags: [['we"ird', 'yes']] })).toEqual(['b']);
    expect(
      await matching({
        tags: [
          ['route', '/api/users'],
          ['browser', 'Chrome'],
        ],
      }),
    ).toEqual([]);
  });

  it('matches free text case-insensitively as a literal substring (%, _ and quotes are not special)', async () => {
    expect(await matching({ text: ['typeerror'] })).toEqual(['a']);
    expect(await matching({ text: ['100%'] })).toEqual(['a']);
    expect(await matching({ text: ["'broken'"] })).toEqual(['a']);
    expect(await matching({ text: ['under_score'] })).toEqual(['b']);
    expect(await matching({ text: ['%'] })).toEqual(['a']);
    expect(await matching({ text: ['boom', 'range'] })).toEqual([]);
  });
});

describe('searchConditions', () => {
  it('joins a parsed search with the list filters given beside it (both must hold)', async () => {
    const search = parseQuery('release:1.0 tags.route:"/api/orders" range');
    expect(await matching(searchConditions(search))).toEqual(['b']);
    expect(await matching(searchConditions(search, { environment: 'staging' }))).toEqual(['b']);
    expect(await matching(searchConditions(search, { environment: 'production' }))).toEqual([]);
    expect(await matching(searchConditions(parseQuery('level:error'), { release: '2.0' }))).toEqual(['c']);
    expect(await matching(searchConditions(parseQuery('release:1.0'), { release: '2.0' }))).toEqual([]);
  });
});
