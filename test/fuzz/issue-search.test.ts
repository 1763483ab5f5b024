// Fuzz: the issue search language (src/storage/issue-search.ts) takes any text: terms compiled
// to SQL, or a SearchSyntaxError (the 400) with a position inside the query, never another throw.
// The scanner's work is linear in the length (counted in steps, not timed), and no value of the
// query ever reaches the SQL text: values travel as parameters only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareKeys, compileSearch, MAX_QUERY_LENGTH, parseSearch, SearchSyntaxError, type ScanMeter } from '../../src/storage/issue-search.js';
import { FUZZ_TIMEOUT_MS } from './fuzz-config.js';

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
