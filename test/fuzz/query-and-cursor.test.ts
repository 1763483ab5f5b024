// Fuzz: the `query` syntax of GET /v1/events and the opaque list cursors take any text: a parsed
// query, a cursor or InvalidCursorError (a 400), never an unexpected throw. Also the request body
// helpers every ingest route uses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/api/query-syntax.js';
import { parseJsonBody, unsupportedCharset } from '../../src/http/body.js';
import { ApiError } from '../../src/http/errors.js';
import { parseJsonExact } from '../../src/http/json.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../src/http/cursor.js';
import { FUZZ_TIMEOUT_MS } from './fuzz-config.js';

/** Text built from the pieces the syntax gives meaning to, and anything else. */
const queryText = fc
  .array(
    fc.oneof(
      fc.constantFrom('release:', 'environment:', 'level:', 'user.id:', 'user.email:', 'trace_id:', 'tags.', 'tags.:', ':', '"', '\\', ' ', '\t', '\\"'),
      fc.string({ unit: 'binary', maxLength: 12 }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

describe('fuzz: query syntax', () => {
  it(
    'parses any text into free text and tokens',
    () => {
      fc.assert(
        fc.property(fc.oneof(queryText, fc.string({ unit: 'binary' })), (text) => {
          const parsed = parseQuery(text);
          expect(Array.isArray(parsed.text)).toBe(true);
          for (const word of parsed.text) expect(typeof word).toBe('string');
          for (const tag of parsed.tags) expect(tag).toEqual([expect.any(String), expect.any(String)]);
          for (const key of ['release', 'environment', 'level', 'userId', 'userEmail', 'traceId'] as const)
            expect(['string', 'undefined']).toContain(typeof parsed[key]);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('fuzz: cursors', () => {
  it(
    'any text is a cursor or InvalidCursorError',
    () => {
      const jsonish = fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value)).toString('base64url'));
      fc.assert(
        fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.base64String(), jsonish), (text) => {
          try {
            const cursor = decodeCursor(text);
            expect(typeof cursor.micros).toBe('bigint');
            expect(typeof cursor.id).toBe('string');
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidCursorError);
          }
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'reads back every cursor it issues',
    () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.string({ unit: 'binary' }), (micros, id) => {
          expect(decodeCursor(encodeCursor({ micros, id }))).toEqual({ micros, id });
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('fuzz: request bodies', () => {
  it(
    'any bytes parse as JSON or are a 400 invalid_json, with either parser',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.uint8Array({ maxLength: 200 }),
            fc.json().map((text) => new TextEncoder().encode(text)),
          ),
          fc.boolean(),
          (bytes, exact) => {
            try {
              parseJsonBody(Buffer.from(bytes), exact ? parseJsonExact : JSON.parse);
            } catch (error) {
              expect(error).toBeInstanceOf(ApiError);
              expect((error as ApiError).code).toBe('invalid_json');
            }
          },
        ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'any Content-Type is read for its charset without a throw',
    () => {
      const contentType = fc
        .array(fc.oneof(fc.constantFrom('application/json', ';', '=', 'charset', 'CHARSET', '"', 'utf-8', 'utf8', ' '), fc.string()), { maxLength: 8 })
        .map((p) => p.join(''));
      fc.assert(
        fc.property(contentType, (type) => {
          const problem = unsupportedCharset(type);
          expect(['string', 'undefined']).toContain(typeof problem);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
