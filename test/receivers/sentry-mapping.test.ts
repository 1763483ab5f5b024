// The pieces of Sentry-SDK ingest that need no server: envelope reading, times, replay segments.
import { gzipSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../receivers/http-api/sentry/envelope.js';
import { mapReplay } from '../../receivers/http-api/sentry/replay.js';
import { mapSentryEvent } from '../../receivers/http-api/sentry/event.js';
import { sentryIso, sentryTime } from '../../receivers/http-api/sentry/time.js';
import { breadcrumbSchema, stackFrameSchema } from '../../src/records/event-schema.js';

const replayEvent = {
  type: 'replay_event',
  replay_id: 'C0FFEE00C0FFEE00C0FFEE00C0FFEE00',
  segment_id: 0,
  timestamp: 1767225601.5,
  replay_start_timestamp: 1767225600,
  environment: 'production',
  release: 'web@1.0.0',
  urls: ['https://shop.example.com/'],
  error_ids: ['9ec79c33ec9942ab8353589fcb2e04dc'],
  trace_ids: ['a'.repeat(32)],
};

describe('mapReplay', () => {
  it('maps a compressed recording to the segment POST /v1/replays takes', () => {
    const events = [{ type: 4, timestamp: 1767225600000, data: { href: 'https://shop.example.com/' } }];
    for (const compress of [gzipSync, deflateSync]) {
      const recording = Buffer.concat([Buffer.from('{"segment_id":0}\n'), compress(Buffer.from(JSON.stringify(events)))]);
      const mapped = mapReplay(replayEvent, recording, Date.now());
      expect(mapped).toEqual({
        ok: true,
        segment: {
          replay_id: 'rpl_c0ffee00c0ffee00c0ffee00c0ffee00',
          segment_id: 0,
          timestamp: '2026-01-01T00:00:01.500Z',
          data: recording.subarray(17).toString('base64'),
          environment: 'production',
          release: 'web@1.0.0',
          urls: ['https://shop.example.com/'],
          error_ids: ['9ec79c33-ec99-42ab-8353-589fcb2e04dc'],
          trace_ids: ['a'.repeat(32)],
        },
      });
    }
  });

  it('passes an uncompressed recording as events, and says why it cannot map one', () => {
    const mapped = mapReplay(replayEvent, Buffer.from('{"segment_id":3}\n[{"type":2}]'), Date.now());
    expect(mapped).toMatchObject({ ok: true, segment: { segment_id: 3, events: [{ type: 2 }] } });
    expect(mapReplay(undefined, Buffer.from('{"segment_id":0}\n[]'), 0)).toMatchObject({ ok: false, reason: expect.stringMatching(/replay_event/) });
    expect(mapReplay(replayEvent, Buffer.from('no header'), 0)).toMatchObject({ ok: false });
    expect(mapReplay(replayEvent, Buffer.from('{"segment_id":0}\n{oops'), 0)).toMatchObject({ ok: false });
  });
});

describe('sentryTime', () => {
  it('converts float seconds exactly from their digits, and RFC 3339 strings', () => {
    expect(sentryTime(1767225600.123456)?.nanos).toBe(1767225600123456000n);
    expect(sentryTime(1767225600.1)?.nanos).toBe(1767225600100000000n);
    expect(sentryTime(1767225600)?.iso).toBe('2026-01-01T00:00:00.000Z');
    expect(sentryTime('2026-01-01T00:00:00.123456Z')?.nanos).toBe(1767225600123456000n);
    expect(sentryTime('yesterday')).toBeUndefined();
    expect(sentryTime(-1)).toBeUndefined();
  });
});

describe('sentryIso', () => {
  it("gives sentryTime's ISO time for every kind of value, float seconds without BigInt", () => {
    const values: unknown[] = [
      0,
      1,
      0.5,
      0.0001,
      1e-7,
      1e21,
      -0.5,
      NaN,
      Infinity,
      1767225600,
      1767225600.1,
      1767225600.999,
      1767225600.9999,
      253_402_300_799,
      253_402_300_799.5,
      253_402_300_800,
      '1767225600.5',
      '2026-01-01T00:00:00.123456Z',
      'x',
      null,
      {},
    ];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 20_000; i++) values.push(Math.round(random() * 2e9 * 1e6) / 1e6, random() * 1e10, Math.round(random() * 1e12) / 1e3);
    for (const value of values) expect([value, sentryIso(value)]).toEqual([value, sentryTime(value)?.iso]);
  });
});

describe('sentryIso at the millisecond boundaries', () => {
  it('gives the exact conversion for the doubles around each multiple of a millisecond, on any day', () => {
    const bits = new Float64Array(1);
    const ints = new BigInt64Array(bits.buffer);
    /** The double `steps` representable values away from `value` (positive values). */
    const neighbour = (value: number, steps: number) => {
      bits[0] = value;
      ints[0] += BigInt(steps);
      return bits[0];
    };
    let seed = 11;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const wholes = [1024, 1025, 2047, 2048, 86_399, 86_400, 2 ** 30 - 1, 2 ** 30, 1_767_225_599, 2 ** 37 - 1, 2 ** 37, 253_402_300_798];
    for (let i = 0; i < 300; i++) wholes.push(1024 + Math.floor(random() * 253_402_299_000), Math.floor(1.6e9 + random() * 3e8));
    const values: number[] = [];
    for (const whole of wholes) {
      for (const ms of [0, 1, 2, 5, 22, 100, 123, 499, 500, 501, 877, 998, 999, Math.floor(random() * 1000)]) {
        const value = (whole * 1000 + ms) / 1000;
        for (const steps of [-3, -2, -1, 0, 1, 2, 3]) values.push(neighbour(value, steps));
      }
    }
    for (const value of values) expect([value, sentryIso(value)]).toEqual([value, sentryTime(value)?.iso]);
  });
});

describe('parseEnvelope', () => {
  it('reads items with and without length, skipping what it cannot read', () => {
    const body = Buffer.from(
      '{"event_id":"x"}\n{"type":"a","length":3}\nabc\n{"type":"b"}\n{"x":1}\n{bad header\n{"type":"c","length":2}\nabcdef\n{"type":"d","length":99}\nxy',
    );
    const envelope = parseEnvelope(body);
    expect(envelope.header).toEqual({ event_id: 'x' });
    expect(envelope.items.map((i) => [i.index, i.type, i.payload.toString()])).toEqual([
      [0, 'a', 'abc'],
      [1, 'b', '{"x":1}'],
    ]);
    expect(envelope.skipped.map((s) => [s.index, s.type])).toEqual([
      [2, null],
      [3, 'c'],
      [4, 'd'],
    ]);
  });
});

describe('mapSentryEvent', () => {
  it('keeps the event when a field does not fit, with a note', () => {
    const mapped = mapSentryEvent(
      { event_id: 'f'.repeat(32), level: 'loud', exception: { values: [{ type: 'E', value: 'v', stacktrace: { frames: [{ lineno: 'x', function: 'f' }] } }] } },
      Date.UTC(2026, 0, 1),
    );
    expect(mapped.ok && mapped.body.exception).toEqual({ type: 'E', value: 'v', stacktrace: [{ function: 'f' }] });
    expect(mapped.ok && mapped.notes.map((n) => n.path)).toEqual(['level', 'exception.values[0].stacktrace.frames[0].lineno']);
    expect(mapSentryEvent({ level: 'error' }, 0)).toMatchObject({ ok: false });
  });

  it('builds breadcrumbs that fit the ingest schema from any input, so they are not checked again', () => {
    const odd: unknown[] = [
      null,
      undefined,
      0,
      -1,
      1.5,
      1023.5,
      1767225600.021999,
      253_402_300_799.5,
      1e21,
      NaN,
      '',
      'x',
      'constructor',
      '__proto__',
      'toString',
      'ERROR',
      'Warn',
      'critical',
      '2026-01-01T00:00:00.123456Z',
      '1767225600.5',
      true,
      [],
      ['a'],
      {},
      { a: 1 },
      JSON.parse('{"__proto__": {"a": 1}}'),
    ];
    const crumbs: unknown[] = [];
    for (const value of odd) {
      crumbs.push(
        value,
        { timestamp: value },
        { level: value },
        { type: value, category: value, message: value },
        { data: value },
        { timestamp: 1767225600.5, level: value, data: value },
      );
    }
    const mapped = mapSentryEvent({ event_id: 'f'.repeat(32), message: 'm', breadcrumbs: { values: crumbs } }, Date.UTC(2026, 0, 1));
    const breadcrumbs = (mapped.ok && (mapped.body.breadcrumbs as unknown[])) || [];
    expect(breadcrumbs.length).toBe(crumbs.filter((c) => typeof c === 'object' && c !== null && !Array.isArray(c)).length);
    for (const crumb of breadcrumbs) expect([crumb, breadcrumbSchema.safeParse(crumb).success]).toEqual([crumb, true]);
    expect(breadcrumbs.filter((c) => (c as { level?: unknown }).level !== undefined).map((c) => (c as { level: string }).level)).toEqual([
      'error',
      'error',
      'warning',
      'warning',
      'fatal',
      'fatal',
    ]);
  });

  it("maps frames in the schema's field order, leaving out nulls, lower-casing debug ids, noting what does not fit", () => {
    const debugId = 'A1B2C3D4-0123-4567-89AB-CDEF01234567';
    const frames = [
      { in_app: true, colno: 3, lineno: 2, function: 'f', filename: 'a.js', debug_id: debugId, vars: { x: 1 } },
      { filename: 'b.js', module: null, lineno: 7, pre_context: ['a'], debug_id: debugId.toLowerCase() },
      { filename: 'c.js', lineno: -1, colno: 1.5, in_app: 'yes', debug_id: 'nope', pre_context: ['a', 1] },
    ];
    const mapped = mapSentryEvent(
      { event_id: 'f'.repeat(32), exception: { values: [{ type: 'E', value: 'v', stacktrace: { frames } }] } },
      Date.UTC(2026, 0, 1),
    );
    const stacktrace = mapped.ok ? (mapped.body.exception as { stacktrace: object[] }).stacktrace : [];
    expect(stacktrace.map((frame) => JSON.stringify(frame))).toEqual([
      JSON.stringify({ filename: 'a.js', function: 'f', lineno: 2, colno: 3, in_app: true, debug_id: debugId.toLowerCase() }),
      JSON.stringify({ filename: 'b.js', lineno: 7, pre_context: ['a'], debug_id: debugId.toLowerCase() }),
      JSON.stringify({ filename: 'c.js' }),
    ]);
    for (const frame of stacktrace) expect(stackFrameSchema.safeParse(frame).success).toBe(true);
    expect(mapped.ok && mapped.notes.map((n) => n.path)).toEqual(
      ['lineno', 'colno', 'in_app', 'pre_context', 'debug_id'].map((f) => `exception.values[0].stacktrace.frames[2].${f}`),
    );
  });

  it('names the replay the error happened in: the replay integration tag replayId, or contexts.replay', () => {
    const error = { event_id: 'f'.repeat(32), exception: { values: [{ type: 'E', value: 'v' }] } };
    const tagged = mapSentryEvent({ ...error, tags: { replayId: 'C0FFEE00C0FFEE00C0FFEE00C0FFEE00' } }, Date.UTC(2026, 0, 1));
    expect(tagged.ok && tagged.body.replay_id).toBe('rpl_c0ffee00c0ffee00c0ffee00c0ffee00');
    const inContext = mapSentryEvent({ ...error, contexts: { replay: { replay_id: 'c0ffee00-c0ff-ee00-c0ff-ee00c0ffee00' } } }, Date.UTC(2026, 0, 1));
    expect(inContext.ok && inContext.body.replay_id).toBe('rpl_c0ffee00c0ffee00c0ffee00c0ffee00');
    const hostile = mapSentryEvent({ ...error, tags: { replayId: '../../x' } }, Date.UTC(2026, 0, 1));
    expect(hostile.ok && hostile.body.replay_id).toBeUndefined();
  });
});
