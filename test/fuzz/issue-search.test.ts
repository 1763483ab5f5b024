// Fuzz: the issue search language (src/storage/issue-search.ts) takes any text: terms compiled
// to SQL, or a SearchSyntaxError (the 400) with a position inside the query, never another throw.
// The scanner's work is linear in the length (counted in steps, not timed), no value of the
// query ever reaches the SQL text (values travel as parameters only), and whatever compiles runs
// in DuckDB (a real in-memory database with the columns of the issue and event relations).
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareKeys, compileSearch, MAX_QUERY_LENGTH, parseSearch, SearchSyntaxError, type ScanMeter } from '../../extensions/query/issue-search.js';
import { FUZZ_RUNS, FUZZ_TIMEOUT_MS } from './fuzz-config.js';

const PIECES = [
  'is:',
  'assigned:',
  'level:',
  'release:',
  'environment:',
  'tags.',
  'user.email:',
  'first_seen:',
  'last_seen:',
  'times_seen:',
  'has:',
  '!',
  ':',
  '"',
  '\\',
  ' ',
  '\t',
  '>',
  '>=',
  '<',
  '-24h',
  '2026-11-01',
  'me',
  'none',
  'unresolved',
  'ZQX',
  "'",
  ';',
  '%',
  '_',
  '@',
];

/** Text built from the pieces the language gives meaning to, and anything else. */
const queryText = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 10 })), { maxLength: 30 })
  .map((parts) => parts.join(''));

/** Well-formed terms of every key with plausible and odd values, so compilation covers each kind of condition. */
const KEYS = [
  'is',
  'assigned',
  'level',
  'release',
  'environment',
  'tags.route',
  'route',
  'user.email',
  'user.id',
  'first_seen',
  'last_seen',
  'times_seen',
  'has',
];
const VALUES = [
  'unresolved',
  'resolved',
  'assigned',
  'me',
  'none',
  'ada@example.com',
  'error',
  'web@1',
  '/a',
  '>-24h',
  '<=2026-11-01',
  '>10',
  '3',
  'user',
  'route',
  'assignee',
  'message',
  'ZQX',
  '"a b"',
  '"\\""',
];
const structuredText = fc
  .array(fc.tuple(fc.boolean(), fc.oneof(fc.constantFrom(...KEYS), fc.constant('')), fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 6 }))), {
    maxLength: 6,
  })
  .map((terms) => terms.map(([negated, key, value]) => (key === '' ? value : `${negated ? '!' : ''}${key}:${value}`)).join(' '));

/** Compiles like the list does, with every bare key seen and a user for `me`, so compilation goes deep. */
function compileAll(text: string, meter?: ScanMeter) {
  const terms = parseSearch(text, meter);
  return compileSearch(terms, { now: Date.UTC(2026, 10, 27), me: 'usr_1', seenTagKeys: new Set(bareKeys(terms)), events: 'events' });
}

describe('fuzz: issue search language', () => {
  it(
    'any text compiles or is a SearchSyntaxError positioned inside it; values stay out of the SQL',
    () => {
      fc.assert(
        fc.property(fc.oneof(queryText, fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
          try {
            const { where, params } = compileAll(text);
            const sql = where.join(' AND ');
            expect(sql).not.toContain('ZQX');
            expect(sql).not.toMatch(/'[^']*ZQX/);
            for (const value of Object.values(params)) expect(['string', 'bigint']).toContain(typeof value);
            for (const name of Object.keys(params)) expect(sql).toContain(`$${name}`);
          } catch (error) {
            expect(error).toBeInstanceOf(SearchSyntaxError);
            const { position } = error as SearchSyntaxError;
            expect(Number.isInteger(position)).toBe(true);
            expect(position).toBeGreaterThanOrEqual(0);
            expect(position).toBeLessThanOrEqual(Math.max(text.length, 0));
          }
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'scans in steps linear in the length, whatever the text',
    () => {
      const long = fc
        .array(fc.constantFrom(...PIECES, 'a', 'tags.a', 'a:', '"a', '\\"', 'x'.repeat(50)), { minLength: 1, maxLength: 400 })
        .map((parts) => parts.join('').slice(0, MAX_QUERY_LENGTH));
      fc.assert(
        fc.property(long, (text) => {
          const meter: ScanMeter = { steps: 0 };
          try {
            parseSearch(text, meter);
          } catch (error) {
            expect(error).toBeInstanceOf(SearchSyntaxError);
          }
          expect(meter.steps).toBeLessThanOrEqual(3 * text.length + 1);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it('refuses text past the cap before scanning it', () => {
    const meter: ScanMeter = { steps: 0 };
    expect(() => parseSearch('"'.repeat(MAX_QUERY_LENGTH + 1), meter)).toThrow(SearchSyntaxError);
    expect(meter.steps).toBe(0);
    // The worst cases for a backtracking matcher cost the scanner no more than their length.
    for (const worst of ['\\'.repeat(MAX_QUERY_LENGTH), 'a'.repeat(MAX_QUERY_LENGTH), `tags.${'a.'.repeat(500)}`, `"${'\\"'.repeat(500)}`]) {
      const m: ScanMeter = { steps: 0 };
      try {
        parseSearch(worst.slice(0, MAX_QUERY_LENGTH), m);
      } catch (error) {
        expect(error).toBeInstanceOf(SearchSyntaxError);
      }
      expect(m.steps).toBeLessThanOrEqual(3 * MAX_QUERY_LENGTH + 1);
    }
  });
});

describe('fuzz: compiled searches run in DuckDB', () => {
  let instance: DuckDBInstance;
  let db: DuckDBConnection;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    db = await instance.connect();
    await db.run(`CREATE TABLE events (dataset VARCHAR, project_id VARCHAR, issue_id VARCHAR, release VARCHAR, environment VARCHAR,
      user_id VARCHAR, user_email VARCHAR, message VARCHAR, tags VARCHAR)`);
    await db.run(`INSERT INTO events VALUES ('live', 'p', 'i1', 'web@1', 'production', 'u1', 'ada@example.com', 'it broke', '{"route": "/a", "ZQX": "1"}'),
      ('live', 'p', 'i2', '', '', NULL, NULL, NULL, NULL)`);
    await db.run(`CREATE TABLE issues AS SELECT * FROM (VALUES
      ('i1', 'live', 'p', 'TypeError: x', 'f (a.js)', 'error', 'unresolved', TIMESTAMP '2026-11-01', TIMESTAMP '2026-11-20', 3::BIGINT,
        {'id': 'usr_1', 'email': 'ada@example.com'}),
      ('i2', 'live', 'p', 'Error: y', 'g (b.js)', 'warning', 'resolved', TIMESTAMP '2026-01-01', TIMESTAMP '2026-02-01', 1::BIGINT, NULL))
      AS t(id, dataset, project_id, title, culprit, level, status, first_seen, last_seen, count, assignee)`);
  });
  afterAll(() => {
    db?.closeSync();
  });

  it(
    'every query that compiles is SQL DuckDB runs',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(structuredText, queryText), async (text) => {
          let compiled: ReturnType<typeof compileAll>;
          try {
            compiled = compileAll(text);
          } catch (error) {
            expect(error).toBeInstanceOf(SearchSyntaxError);
            return;
          }
          const where = ['dataset = $dataset', 'project_id = $project', ...compiled.where].join(' AND ');
          const result = await db.runAndReadAll(`SELECT count(*) FROM issues WHERE ${where}`, { ...compiled.params, dataset: 'live', project: 'p' });
          expect(Number(result.getRows()[0][0])).toBeLessThanOrEqual(2);
        }),
        { numRuns: Math.min(FUZZ_RUNS, 150) },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it('reaches back at most a century, so every time fits the database', () => {
    expect(() => compileAll('first_seen:>-999999999w')).toThrow(SearchSyntaxError);
    expect(compileAll('first_seen:>-36500d').where).toHaveLength(1);
  });
});
