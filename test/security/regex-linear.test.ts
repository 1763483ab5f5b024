// Every function that runs regexes over what senders write, fed runs of the characters that make
// a backtracking regex backtrack, at growing sizes up to the longest input it can be given: each
// step must cost about as much more as the input grew (a generous bound: an exponential regex is
// off by orders of magnitude within the first steps, so the ladder fails long before it could
// hang), and the longest input must take little time.
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../extensions/query/index.js';
import type { ErrorEvent, StackFrame } from '../../src/records/event.js';
import { exceptionEventsFromSpan } from '../../connectors/exceptions/span-exceptions.js';
import type { Span } from '../../src/records/span.js';
import { MAX_TEXT_LENGTH, parseJavaCauses, parseStacktrace } from '../../connectors/exceptions/stacktrace-text.js';
import { sentryKeyFromDsn, sentryKeyFromHeader } from '../../src/auth/sentry-dsn.js';
import { compileRules } from '../../processors/grouping/compile-rules.js';
import { computeGrouping } from '../../processors/grouping/fingerprint.js';
import {
  normalizeFilename as normalizeFilenameV1,
  normalizeFunction as normalizeFunctionV1,
  parameterize,
} from '../../processors/grouping/legacy/normalize-v1.js';
import { MAX_MESSAGE_LENGTH, MAX_NAME_LENGTH } from '../../processors/grouping/limits.js';
import { canonicalEngineMessage, canonicalType } from '../../processors/grouping/names/engine-messages.js';
import { normalizeFilename } from '../../processors/grouping/names/files.js';
import { isGoRuntimeFunction, normalizeGoFunction } from '../../processors/grouping/names/go.js';
import { isAsyncFrame, isPageUrl, isRuntimeFile, javaScriptLocation, normalizeJavaScriptFunction } from '../../processors/grouping/names/javascript.js';
import { isRuntimeJvmFrame, normalizeJvmClass, normalizeJvmMethod } from '../../processors/grouping/names/jvm.js';
import { parameterizeMessage } from '../../processors/grouping/names/messages.js';
import { isSystemNativeFrame, normalizeNativeFunction } from '../../processors/grouping/names/native.js';
import { normalizePythonFunction } from '../../processors/grouping/names/python.js';
import { compilePathGlob, compileTextGlob, normalizePath } from '../../processors/grouping/rules/glob.js';
import { groupingRulesSchema } from '../../processors/grouping/rules/schema.js';
import { absoluteSource, candidateNames, displayPath, isVendorSource, mapUrlNames, tildePath } from '../../processors/symbolication/javascript.js';

/** The longest query string a request line can carry (Node's default header limit is 16 KiB). */
const MAX_QUERY_LENGTH = 16_384;
/** The longest input must be done within this (one call; an event makes a few hundred such calls on much shorter inputs). */
const LONGEST_MS = 40;
/** A step may cost at most this many times more, once above the timer's (and the collector's) noise. */
const DOUBLING_FACTOR = 6;
const NOISE_MS = 5;

interface Target {
  name: string;
  max: number;
  run: (input: string) => unknown;
}

const textGlob = compileTextGlob('*a*a*a*b', false);
const textGlobInsensitive = compileTextGlob('*:*?*:*x', true);
const pathGlob = compilePathGlob('**/a*a*/**/*a*b.js');
const segmentsGlob = compilePathGlob('**/a/a/**/a/b/**');

const TARGETS: Target[] = [
  { name: 'native function', max: MAX_NAME_LENGTH, run: normalizeNativeFunction },
  { name: 'native system frame', max: MAX_NAME_LENGTH, run: (s) => isSystemNativeFrame(s, s) },
  { name: 'JavaScript function', max: MAX_NAME_LENGTH, run: normalizeJavaScriptFunction },
  { name: 'JavaScript location', max: MAX_NAME_LENGTH, run: javaScriptLocation },
  { name: 'JavaScript runtime file', max: MAX_NAME_LENGTH, run: isRuntimeFile },
  { name: 'JavaScript page URL', max: MAX_NAME_LENGTH, run: isPageUrl },
  { name: 'JavaScript async frame', max: MAX_NAME_LENGTH, run: isAsyncFrame },
  { name: 'JVM class', max: MAX_NAME_LENGTH, run: normalizeJvmClass },
  { name: 'JVM method', max: MAX_NAME_LENGTH, run: normalizeJvmMethod },
  { name: 'JVM runtime frame', max: MAX_NAME_LENGTH, run: isRuntimeJvmFrame },
  { name: 'Go function', max: MAX_NAME_LENGTH, run: normalizeGoFunction },
  { name: 'Go runtime', max: MAX_NAME_LENGTH, run: isGoRuntimeFunction },
  { name: 'Python function', max: MAX_NAME_LENGTH, run: normalizePythonFunction },
  { name: 'file name', max: MAX_NAME_LENGTH, run: normalizeFilename },
  { name: 'file name (v1)', max: MAX_NAME_LENGTH, run: normalizeFilenameV1 },
  { name: 'function (v1)', max: MAX_NAME_LENGTH, run: normalizeFunctionV1 },
  { name: 'message (v1)', max: MAX_MESSAGE_LENGTH, run: parameterize },
  { name: 'message', max: MAX_MESSAGE_LENGTH, run: parameterizeMessage },
  { name: 'engine message', max: MAX_MESSAGE_LENGTH, run: canonicalEngineMessage },
  { name: 'exception type', max: MAX_NAME_LENGTH, run: (s) => canonicalType(s, s) },
  { name: 'rule text glob', max: MAX_MESSAGE_LENGTH, run: textGlob },
  { name: 'rule text glob (case-insensitive)', max: MAX_MESSAGE_LENGTH, run: textGlobInsensitive },
  { name: 'rule path glob', max: MAX_NAME_LENGTH, run: (s) => pathGlob.test(normalizePath(s)) },
  { name: 'rule path glob (whole segments)', max: MAX_NAME_LENGTH, run: (s) => segmentsGlob.test(normalizePath(s)) },
  { name: 'search query', max: MAX_QUERY_LENGTH, run: parseQuery },
  { name: 'stack text', max: MAX_TEXT_LENGTH, run: (s) => parseStacktrace(s) },
  { name: 'stack text (Java causes)', max: MAX_TEXT_LENGTH, run: parseJavaCauses },
  { name: 'Sentry auth header', max: MAX_QUERY_LENGTH, run: sentryKeyFromHeader },
  { name: 'Sentry DSN', max: MAX_QUERY_LENGTH, run: sentryKeyFromDsn },
  { name: 'symbolication: tilde path', max: MAX_NAME_LENGTH, run: tildePath },
  { name: 'symbolication: candidate names', max: MAX_NAME_LENGTH, run: candidateNames },
  { name: 'symbolication: map URL names', max: MAX_NAME_LENGTH, run: (s) => mapUrlNames(s, s) },
  { name: 'symbolication: display path', max: MAX_NAME_LENGTH, run: displayPath },
  { name: 'symbolication: vendor source', max: MAX_NAME_LENGTH, run: isVendorSource },
  { name: 'symbolication: absolute source', max: MAX_NAME_LENGTH, run: (s) => absoluteSource(s, s) },
];

/** Runs of these make backtracking regexes backtrack: qualifiers, brackets, separators, digits, quotes, and pieces of the formats parsed. */
const UNITS = [
  '&',
  '&&',
  ' const',
  ' ',
  '\t',
  '\n',
  '(',
  ')',
  '<',
  '>',
  '{lambda(',
  '<lambda_',
  ':',
  '::',
  '::h',
  '0',
  '1',
  '1 ',
  '1:',
  '1m',
  '1.',
  '0x',
  'a',
  'A',
  'aA',
  'a1',
  'a_',
  'a.',
  'a@',
  'a/',
  '../',
  '.',
  '/',
  '\\',
  '$',
  '$1',
  '$$',
  '$$Lambda$1',
  '_v1',
  '::__',
  '_',
  '-',
  '@',
  '@a:1',
  "'",
  '"',
  '"a',
  'a:"',
  '\\"',
  '`',
  '+',
  ' +',
  '=',
  '*',
  '[',
  '#',
  '?',
  '%',
  'Mon ',
  'http://',
  'a:1:',
  'a.b(',
  '  at a (',
  '\n    at ',
  '\n\tat a.b(',
  'Caused by: ',
  'File "',
  'Error: ',
];
/** What ends the run: nothing, or a character that makes the pattern fail at the very end. */
const TAILS = ['', 'x', '!', ' ', ':', '('];

function fill(unit: string, length: number, tail: string): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, Math.max(0, length - tail.length)) + tail;
}

/** The shortest of three calls, on inputs of slightly different lengths (so no memory of a previous call answers). */
function bestTime(run: Target['run'], unit: string, length: number, tail: string): number {
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const input = fill(unit, length - r, tail);
    const start = performance.now();
    run(input);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

/** Times at doubling lengths up to `max`; the failure names the input and the step that blew up. */
function ladder(target: Target, unit: string, tail: string): string | undefined {
  let previous = 0;
  // Short steps first: a regex exponential in a run's length takes seconds a few characters past 20.
  for (let length = 8; ; length = Math.min(length < 64 ? Math.ceil(length * 1.25) : length * 2, target.max)) {
    const time = bestTime(target.run, unit, length, tail);
    const label = `${target.name}: ${JSON.stringify(unit)} × ${length} + ${JSON.stringify(tail)}`;
    if (time > NOISE_MS && time > DOUBLING_FACTOR * Math.max(previous, NOISE_MS / DOUBLING_FACTOR))
      return `${label} took ${time.toFixed(2)} ms, up from ${previous.toFixed(2)} ms`;
    if (length === target.max) return time > LONGEST_MS ? `${label} took ${time.toFixed(2)} ms` : undefined;
    previous = time;
  }
}

describe('every regex over sender text runs in linear time', () => {
  for (const target of TARGETS) {
    it(target.name, () => {
      // The JIT first (the first calls of a function run in the interpreter), on input nothing backtracks on.
      for (const unit of ['a', 'x1', 'a.b']) bestTime(target.run, unit, Math.min(256, target.max), '');
      const failures: string[] = [];
      for (const unit of UNITS) for (const tail of TAILS) failures.push(ladder(target, unit, tail) ?? '');
      expect(failures.filter(Boolean)).toEqual([]);
    });
  }

  it('on random mixes of those runs too (fast-check)', () => {
    const mixes = fc.array(fc.constantFrom(...UNITS), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.constantFrom(...TARGETS), mixes, fc.constantFrom(...TAILS), (target, units, tail) => {
        expect(ladder(target, units.join(''), tail)).toBeUndefined();
      }),
      { numRuns: 300, seed: 23 },
    );
  });
});

/** Frames whose every name is an adversarial run of the longest length grouping reads. */
function hostileFrames(unit: string, count: number): StackFrame[] {
  return Array.from({ length: count }, (_, i) => {
    const name = fill(unit, MAX_NAME_LENGTH - (i % 7), 'x');
    return { function: name, module: name, filename: name, abs_path: name, in_app: i % 2 === 0 };
  });
}

describe('one event, whole grouping', () => {
  const rules = compileRules(
    groupingRulesSchema.parse({
      stacktrace: ['function:*a*a*a*b -group', 'path:**/a*a*/**/*b.js +app'],
      fingerprint: ['value:*a*a*a*b -> a-rule', 'message:*:*?*:*x -> another'],
    }),
  );

  for (const platform of ['native', 'javascript', 'java', 'python', 'go', 'other']) {
    it(`of 250 hostile ${platform} frames and the longest hostile message is done within a bound`, () => {
      const times: number[] = [];
      for (const unit of ['&', ' ', '(', '<', ':', '1', 'a', '@', '$1']) {
        const message = fill(unit, MAX_MESSAGE_LENGTH, 'x');
        const event: ErrorEvent = {
          id: '0190a3c5-0000-7000-8000-000000000000',
          timestamp: '2026-01-01T00:00:00Z',
          platform,
          message,
          exception: { type: fill(unit, MAX_NAME_LENGTH, 'x'), value: message, stacktrace: hostileFrames(unit, 250) },
        } as ErrorEvent;
        const start = performance.now();
        computeGrouping(event, { rules });
        times.push(performance.now() - start);
      }
      // Most of an event's grouping time is the first sight of 250 distinct long names; the names an app really has repeat.
      expect(Math.max(...times.slice(1))).toBeLessThan(250);
    });
  }

  it('cuts what is longer than grouping reads before any regex sees it', () => {
    const huge = '&'.repeat(200_000);
    const event = {
      id: '0190a3c5-0000-7000-8000-000000000001',
      timestamp: '2026-01-01T00:00:00Z',
      platform: 'native',
      message: huge,
      exception: { type: 'E', value: huge, stacktrace: [{ function: `f()${huge}` }] },
    } as ErrorEvent;
    const start = performance.now();
    const result = computeGrouping(event);
    expect(performance.now() - start).toBeLessThan(LONGEST_MS * 5);
    expect(result.components.join('').length).toBeLessThan(MAX_NAME_LENGTH + 100);
  });
});

describe('span exception events', () => {
  it('parse the longest hostile stack text within a bound', () => {
    for (const unit of ['@', 'x@', '@a:1', '\n    at ', '\n\tat a.b(', 'Caused by: ']) {
      const span: Span = {
        trace_id: '0af7651916cd43dd8448eb211c80319c',
        span_id: 'b7ad6b7169203331',
        parent_span_id: '',
        name: 'checkout',
        service_name: 'shop',
        start_time_unix_nano: 1_700_000_000_000_000_000n,
        end_time_unix_nano: 1_700_000_001_000_000_000n,
        status: 'error',
        kind: 'server',
        attributes: {},
        resource_attributes: { 'telemetry.sdk.language': 'java' },
        events: [
          {
            name: 'exception',
            time_unix_nano: 1_700_000_000_500_000_000n,
            attributes: { 'exception.type': 'E', 'exception.message': 'm', 'exception.stacktrace': fill(unit, 4 * MAX_TEXT_LENGTH, 'x') },
          },
        ],
        links: [],
        project_id: 'p',
        received_at: '2026-01-01T00:00:00Z',
      };
      const start = performance.now();
      exceptionEventsFromSpan(span);
      expect(performance.now() - start, JSON.stringify(unit)).toBeLessThan(LONGEST_MS * 5);
    }
  });
});
