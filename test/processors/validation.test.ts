/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { describe, expect, it } from 'vitest';
import { validate as isUuid, version as uuidVersion } from 'uuid';
import type { Item } from '../../src/engine/item.js';
import type { ErrorEvent } from '../../src/records/event.js';
import { validationConfigSchema, type ValidationConfig } from '../../processors/validation/config.js';
import { validationFactory } from '../../processors/validation/factory.js';
import { errorEventJsonSchema } from '../../src/records/event-schema.js';
import { parseRelease, validateEvent } from '../../processors/validation/validate.js';
import { expectCompiledParity } from '../support/validation-parity.js';

const defaults = validationConfigSchema.parse({});

function processor(config: Partial<ValidationConfig> = {}) {
  return validationFactory.create({
    id: { type: 'validation', text: 'validation' },
    config: validationConfigSchema.parse(config),
    host: undefined as never,
    signal: 'events',
    pipeline: 'events',
  });
}

function itemOf(data: unknown): Item {
  return {
    data,
    tenant: { orgId: 'org1', projectId: 'proj1', dataset: 'live' },
    receivedAt: Date.parse('2024-05-01T12:00:05.000Z'),
    size: 1000,
  };
}

async function run(data: unknown, config: Partial<ValidationConfig> = {}): Promise<Item> {
  expectCompiledParity(data);
  const item = itemOf(data);
  await processor(config).process([item]);
  return item;
}

/** The smallest valid body, plus a frame and a user so that the tables can reach into them. */
function minimal(): Record<string, any> {
  return {
    timestamp: '2024-05-01T12:00:00Z',
    environment: 'production',
    release: 'web@1.0.0',
    exception: { type: 'TypeError', value: 'x is undefined', stacktrace: [{ filename: 'app.js' }] },
    user: { id: 'u1' },
    tags: { browser: 'Firefox' },
  };
}

/** Sets `value` at a path such as `exception.stacktrace[0].lineno`; undefined deletes. */
function setAt(target: Record<string, any>, path: string, value: unknown): Record<string, any> {
  const keys = path.split(/[.[\]]+/).filter(Boolean);
  let node = target;
  for (const key of keys.slice(0, -1)) node = node[key];
  const last = keys[keys.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return target;
}

function errorsOf(raw: unknown, config = defaults) {
  expectCompiledParity(raw);
  const result = validateEvent(raw, config);
  if (result.ok) throw new Error('expected the event to be rejected');
  return result.errors;
}

function accepted(raw: unknown, config: ValidationConfig = defaults) {
  expectCompiledParity(raw);
  const result = validateEvent(raw, config);
  if (!result.ok) throw new Error(`expected the event to be accepted: ${JSON.stringify(result.errors)}`);
  return result;
}

describe('validation processor', () => {
  it('round-trips every field of a full event, normalized', async () => {
    const body = {
      id: '0190F5A2-7C1E-7B3A-9D4E-2F6A8B1C3D5E',
      timestamp: '2024-05-01T14:00:00.123456+02:00',
      environment: 'production',
      release: 'web@1.4.2',
      level: 'warning',
      message: 'checkout failed',
      platform: 'javascript',
      exception: {
        type: 'TypeError',
        value: "Cannot read properties of undefined (reading 'id')",
        module: 'app/cart',
        stacktrace: [
          {
            filename: 'src/main.js',
            abs_path: 'https://shop.example.com/static/main.js',
            module: 'main',
            function: 'boot',
            platform: 'javascript',
            lineno: 10,
            colno: 0,
            in_app: true,
            context_line: 'boot();',
            pre_context: ['// start'],
            post_context: ['// end'],
          },
          { filename: 'src/cart.js', function: 'checkout', lineno: 42, colno: 7, in_app: true },
        ],
      },
      user: { id: 'u-1', email: 'ada@example.com', username: 'ada', ip_address: '203.0.113.7' },
      tags: { browser: 'Firefox', region: 'eu' },
      trace_id: '4BF92F3577B34DA6A3CE929D0E0E4736',
      replay_id: 'rpl_abc123',
      breadcrumbs: [
        {
          timestamp: '2024-05-01T13:59:58+02:00',
          type: 'http',
          category: 'fetch',
          message: 'GET /api/cart',
          level: 'info',
          data: { status_code: 500 },
        },
      ],
      contexts: { browser: { name: 'Firefox', version: '126' } },
      request: {
        url: 'https://shop.example.com/cart',
        method: 'POST',
        headers: { 'User-Agent': 'Mozilla/5.0' },
        query_string: 'a=1',
        data: { items: [1, 2] },
      },
      fingerprint: ['{{ default }}', 'checkout'],
      sdk: { name: 'sentry.javascript.browser', version: '8.1.0' },
    };

    const item = await run(structuredClone(body));

    expect(item.outcome).toBeUndefined();
    const expected: ErrorEvent = {
      ...body,
      level: 'warning',
      id: '0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e',
      timestamp: '2024-05-01T12:00:00.123Z',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      breadcrumbs: [{ ...body.breadcrumbs[0], level: 'info', timestamp: '2024-05-01T11:59:58.000Z' }],
      project_id: 'proj1',
      received_at: '2024-05-01T12:00:05.000Z',
      release_info: { app: 'web', version: '1.4.2' },
      processing_errors: [],
    };
    expect(item.data).toEqual(expected);
    const event = item.data as ErrorEvent;
    for (const derived of ['issue_id', 'title', 'culprit', 'root_cause'] as const) expect(event[derived]).toBeUndefined();
  });

  it('defaults level to error and leaves optional fields out', () => {
    const { event, notes } = accepted({
      timestamp: '2024-05-01T12:00:00.000Z',
      environment: 'dev',
      release: 'r1',
      exception: { type: 'Error', value: '' },
    });
    expect(event.level).toBe('error');
    expect(Object.keys(event).sort()).toEqual(['environment', 'exception', 'id', 'level', 'release', 'timestamp']);
    expect(notes).toEqual([]);
  });

  it('assigns a UUIDv7 when the id is omitted', async () => {
    const item = await run(minimal());
    const { id } = item.data as ErrorEvent;
    expect(isUuid(id)).toBe(true);
    expect(uuidVersion(id)).toBe(7);
  });

  it('rejects an invalid event with field-level details', async () => {
    const item = await run(setAt(minimal(), 'release', undefined));
    expect(item.outcome).toEqual({
      kind: 'rejected',
      code: 'validation_failed',
      message: 'the event is invalid',
      details: [{ path: 'release', message: 'is required' }],
    });
  });

  it('omits release_info when the release has no <app>@<version> shape', async () => {
    const item = await run(setAt(minimal(), 'release', 'nover'));
    expect(item.data).not.toHaveProperty('release_info');
  });

  it('processes every item of a batch', async () => {
    const items = [itemOf(minimal()), itemOf('nope'), itemOf(minimal())];
    await processor().process(items);
    expect(items.map((item) => item.outcome?.kind)).toEqual([undefined, 'rejected', undefined]);
  });

  it('handles events, traces and replays', () => {
    expect(validationFactory.type).toBe('validation');
    expect(validationFactory.signals).toEqual(['events', 'traces', 'replays']);
  });
});

describe('validation processor: clock skew and nesting', () => {
  it('sets a timestamp far in the future to the time of receipt, with a note', async () => {
    const item = await run({ ...minimal(), timestamp: '2024-05-02T12:00:00Z' });
    const event = item.data as ErrorEvent;
    expect(event.timestamp).toBe('2024-05-01T12:00:05.000Z');
    expect(event.processing_errors).toContainEqual({
      type: 'future_timestamp',
      path: 'timestamp',
      message: 'was 2024-05-02T12:00:00.000Z, in the future; set to the time of receipt',
    });
  });

  it('keeps a timestamp a little ahead of the receiver (within max_future_skew_seconds)', async () => {
    const item = await run({ ...minimal(), timestamp: '2024-05-01T12:04:00Z' });
    expect((item.data as ErrorEvent).timestamp).toBe('2024-05-01T12:04:00.000Z');
  });

  it('rejects a body nested deeper than max_depth, naming where', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const errors = errorsOf({ ...minimal(), contexts: { app: { x: deep } } });
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toMatch(/^contexts\.app\.x(\[0\])+$/);
    expect(errors[0].message).toBe('nested deeper than 64 levels');
    expect(accepted({ ...minimal(), contexts: { app: { x: [[['fine']]] } } }).event.contexts).toEqual({ app: { x: [[['fine']]] } });
  });
});

describe('config', () => {
  it('fills every default from an empty section', () => {
    expect(validationConfigSchema.parse({})).toEqual({
      max_message_length: 8192,
      max_exception_value_length: 8192,
      max_string_length: 1024,
      max_tag_key_length: 200,
      max_tag_value_length: 200,
      max_tags: 100,
      max_frames: 250,
      max_exception_chain: 10,
      max_breadcrumbs: 100,
      max_fingerprint_parts: 50,
      max_depth: 64,
      max_future_skew_seconds: 300,
      max_span_attributes: 128,
      max_span_events: 128,
      max_span_links: 128,
      max_attribute_value_length: 4096,
    });
  });

  it('rejects unknown keys and caps below 1', () => {
    expect(validationConfigSchema.safeParse({ max_frame: 10 }).success).toBe(false);
    expect(validationConfigSchema.safeParse({ max_frames: 0 }).success).toBe(false);
    expect(validationConfigSchema.parse({ max_frames: 100 }).max_frames).toBe(100);
  });
});

describe('validateEvent: errors', () => {
  it.each(['timestamp', 'environment', 'release', 'exception', 'exception.type', 'exception.value'])('requires %s', (path) => {
    expect(errorsOf(setAt(minimal(), path, undefined))).toEqual([{ path, message: 'is required' }]);
  });

  it.each([
    // Error event
    ['id', 42, 'expected a string, got number'],
    ['timestamp', 1714564800, 'expected a string, got number'],
    ['environment', 5, 'expected a string, got number'],
    ['environment', '', 'must not be empty'],
    ['release', true, 'expected a string, got boolean'],
    ['release', '', 'must not be empty'],
    ['exception', 'boom', 'expected an object, got string'],
    ['user', ['u1'], 'expected an object, got array'],
    ['tags', 'a=b', 'expected an object, got string'],
    ['tags.browser', null, 'expected a string, a number or a boolean, got null'],
    ['tags.browser', { name: 'x' }, 'expected a string, a number or a boolean, got object'],
    ['trace_id', 123, 'expected a string, got number'],
    ['trace_id', 'not hex!', 'must be 1-64 characters of [0-9A-Za-z_-]'],
    ['trace_id', 'a'.repeat(65), 'must be 1-64 characters of [0-9A-Za-z_-]'],
    ['replay_id', false, 'expected a string, got boolean'],
    ['replay_id', 'abc123', 'must be shaped rpl_<id>, <id> being 1-64 characters of [0-9A-Za-z_-]'],
    // Exception
    ['exception.type', 1, 'expected a string, got number'],
    ['exception.type', '', 'must not be empty'],
    ['exception.value', null, 'expected a string, got null'],
    ['exception.module', 1, 'expected a string, got number'],
    ['exception.stacktrace', { frames: [] }, 'expected an array, got object'],
    ['exception.stacktrace[0]', 'app.js:1', 'expected an object, got string'],
    // Stack frame
    ['exception.stacktrace[0].filename', 1, 'expected a string, got number'],
    ['exception.stacktrace[0].abs_path', [], 'expected a string, got array'],
    ['exception.stacktrace[0].function', false, 'expected a string, got boolean'],
    ['exception.stacktrace[0].lineno', '12', 'expected an integer, got string'],
    ['exception.stacktrace[0].lineno', 1.5, 'expected an integer, got 1.5'],
    ['exception.stacktrace[0].lineno', -1, 'must be 0 or greater'],
    ['exception.stacktrace[0].colno', '7', 'expected an integer, got string'],
    ['exception.stacktrace[0].in_app', 'true', 'expected a boolean, got string'],
    ['exception.stacktrace[0].pre_context', 'x', 'expected an array, got string'],
    ['exception.stacktrace[0].context_line', 3, 'expected a string, got number'],
    // User
    ['user.id', true, 'expected a string or a number, got boolean'],
    ['user.email', 5, 'expected a string, got number'],
    ['user.username', {}, 'expected a string, got object'],
    ['user.ip_address', 127001, 'expected a string, got number'],
    // Extras of DESIGN.md
    ['level', 'critical', 'expected one of "fatal", "error", "warning", "info", "debug", got "critical"'],
    ['level', 3, 'expected one of "fatal", "error", "warning", "info", "debug", got number'],
    ['message', { text: 'x' }, 'expected a string, got object'],
    ['platform', 1, 'expected a string, got number'],
    ['breadcrumbs', {}, 'expected an array, got object'],
    ['contexts', { os: 'linux' }, 'expected an object, got string'],
    ['request', 'GET /', 'expected an object, got string'],
    ['fingerprint', 'x', 'expected an array, got string'],
    ['sdk', 'sentry', 'expected an object, got string'],
  ])('%s = %j: %s', (field, value, message) => {
    const path = field === 'contexts' ? 'contexts.os' : field;
    expect(errorsOf(setAt(minimal(), field, value))).toEqual([{ path, message }]);
  });

  it('reports errors inside breadcrumbs, request and fingerprint with their path', () => {
    const body = {
      ...minimal(),
      breadcrumbs: [{ message: 'ok' }, { timestamp: 'later', level: 'loud', data: [1] }],
      request: { headers: { 'X-Count': 2 } },
      fingerprint: ['a', ''],
    };
    expect(errorsOf(body)).toEqual([
      { path: 'breadcrumbs[1].timestamp', message: 'must be an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z' },
      { path: 'breadcrumbs[1].level', message: expect.stringMatching(/^expected one of .*, got "loud"$/) },
      { path: 'breadcrumbs[1].data', message: 'expected an object, got array' },
      { path: 'request.headers["X-Count"]', message: 'expected a string, got number' },
      { path: 'fingerprint[1]', message: 'must not be empty' },
    ]);
  });

  it('lists every problem, not only the first', () => {
    const body = minimal();
    delete body.release;
    body.environment = 7;
    body.exception.stacktrace.push({ lineno: 'x' }, { colno: -3, in_app: 1 });
    body.user.email = false;
    expect(errorsOf(body)).toEqual([
      { path: 'environment', message: 'expected a string, got number' },
      { path: 'release', message: 'is required' },
      { path: 'exception.stacktrace[1].lineno', message: 'expected an integer, got string' },
      { path: 'exception.stacktrace[2].colno', message: 'must be 0 or greater' },
      { path: 'exception.stacktrace[2].in_app', message: 'expected a boolean, got number' },
      { path: 'user.email', message: 'expected a string, got boolean' },
    ]);
  });

  it.each([
    ['array', []],
    ['string', 'event'],
    ['null', null],
    ['number', 3],
  ])('rejects a body that is not an object (%s) at path ""', (type, body) => {
    expect(errorsOf(body)).toEqual([{ path: '', message: `expected a JSON object, got ${type}` }]);
  });
});

describe('validateEvent: id', () => {
  it.each([
    'not-a-uuid',
    '0190f5a2-7c1e-7b3a-9d4e',
    '0190f5a27c1e7b3a9d4e2f6a8b1c3d5',
    '{0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e}',
    'g190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e',
    '',
  ])('rejects %j', (id) => {
    expect(errorsOf({ ...minimal(), id })).toEqual([{ path: 'id', message: expect.stringMatching(/^must be a UUID/) }]);
  });

  it.each([
    ['0190F5A27C1E7B3A9D4E2F6A8B1C3D5E', '0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e'],
    ['0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e', '0190f5a2-7c1e-7b3a-9d4e-2f6a8b1c3d5e'],
    ['C73BCDCC-2669-4BF6-81D3-E4AE73FB11FD', 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd'],
  ])('normalizes %s', (id, normalized) => {
    expect(accepted({ ...minimal(), id }).event.id).toBe(normalized);
  });
});

describe('validateEvent: timestamps', () => {
  it.each([
    ['2024-05-01T14:30:00+02:00', '2024-05-01T12:30:00.000Z'],
    ['2024-05-01T07:00:00-0530', '2024-05-01T12:30:00.000Z'],
    ['2024-05-01T12:30:00.123456789Z', '2024-05-01T12:30:00.123Z'],
    ['2024-05-01T12:30:00', '2024-05-01T12:30:00.000Z'],
    ['2024-05-01T12:30Z', '2024-05-01T12:30:00.000Z'],
    ['2024-02-29T23:00:00-01:00', '2024-03-01T00:00:00.000Z'],
    ['2024-05-01t12:30:00,5z', '2024-05-01T12:30:00.500Z'],
    ['2024-05-01T17:30:00+05', '2024-05-01T12:30:00.000Z'],
    ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000Z'],
    ['2262-04-11T23:47:16.854Z', '2262-04-11T23:47:16.854Z'],
  ])('normalizes %s to %s', (timestamp, normalized) => {
    expect(accepted({ ...minimal(), timestamp }).event.timestamp).toBe(normalized);
  });

  it.each([
    'yesterday',
    '2024-05-01',
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-05-01T25:00:00Z',
    '2024-05-01 12:00:00',
    '2024-05-01T12:00:00+25:00',
    '',
  ])('rejects %j', (timestamp) => {
    expect(errorsOf({ ...minimal(), timestamp })).toEqual([{ path: 'timestamp', message: 'must be an ISO 8601 date-time, e.g. 2024-05-01T12:00:00Z' }]);
  });

  // Stored as a count of nanoseconds in a signed 64-bit integer: 1970 to 2262 (issue #10).
  it.each(['1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00Z', '2262-04-11T23:47:16.855Z', '9999-12-31T23:59:59Z', '1970-01-01T00:30:00+01:00'])(
    'rejects %j, outside the storable range',
    (timestamp) => {
      expect(errorsOf({ ...minimal(), timestamp })).toEqual([
        { path: 'timestamp', message: 'must be between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16.854Z' },
      ]);
    },
  );

  it('normalizes breadcrumb timestamps, of any year', () => {
    const { event } = accepted({ ...minimal(), breadcrumbs: [{ timestamp: '2024-05-01T12:00:00+01:00' }, {}, { timestamp: '0000-02-29T00:00:00Z' }] });
    expect(event.breadcrumbs).toEqual([{ timestamp: '2024-05-01T11:00:00.000Z' }, {}, { timestamp: '0000-02-29T00:00:00.000Z' }]);
  });
});

describe('validateEvent: normalization', () => {
  it('stringifies numeric and boolean tag values, noting each, and a numeric user id', () => {
    const { event, notes } = accepted({ ...minimal(), tags: { count: 3, ratio: 0.5, beta: true, name: 'x', 'build id': 7 }, user: { id: 42 } });
    expect(event.tags).toEqual({ count: '3', ratio: '0.5', beta: 'true', name: 'x', 'build id': '7' });
    expect(event.user).toEqual({ id: '42' });
    expect(notes).toEqual([
      { type: 'tag_value_converted', path: 'tags.count', message: 'number 3 stored as the string "3"' },
      { type: 'tag_value_converted', path: 'tags.ratio', message: 'number 0.5 stored as the string "0.5"' },
      { type: 'tag_value_converted', path: 'tags.beta', message: 'boolean true stored as the string "true"' },
      { type: 'tag_value_converted', path: 'tags["build id"]', message: 'number 7 stored as the string "7"' },
    ]);
  });

  it('lower-cases hex trace ids only', () => {
    expect(accepted({ ...minimal(), trace_id: 'ABCDEF01' }).event.trace_id).toBe('abcdef01');
    expect(accepted({ ...minimal(), trace_id: 'Req_ABC-1' }).event.trace_id).toBe('Req_ABC-1');
  });

  it('drops unknown fields and notes each one', () => {
    const body = minimal();
    body.server_name = 'web-1';
    body['odd key'] = 1;
    body.exception.mechanism = { handled: false };
    body.exception.stacktrace[0].vars = { a: 1 };
    body.user.segment = 'paid';
    body.request = { url: '/x', cookies: 'a=b' };
    body.sdk = { name: 'sentry.python', integrations: ['django'] };
    body.breadcrumbs = [{ message: 'hi', event_id: 'x' }];
    body.contexts = { os: { name: 'Linux', kernel: '6.1' } };

    const { event, notes } = accepted(body);

    expect(event).not.toHaveProperty('server_name');
    expect(event.exception.mechanism).toEqual({ handled: false }); // Sentry's mechanism is kept as sent
    expect(event.exception.stacktrace![0]).toEqual({ filename: 'app.js' });
    expect(event.user).toEqual({ id: 'u1' });
    expect(event.request).toEqual({ url: '/x' });
    expect(event.sdk).toEqual({ name: 'sentry.python' });
    expect(event.breadcrumbs).toEqual([{ message: 'hi' }]);
    expect(event.contexts).toEqual({ os: { name: 'Linux', kernel: '6.1' } }); // free-form
    const unknown = (path: string) => ({ type: 'unknown_field', path, message: 'unknown field, discarded' });
    expect(notes).toEqual([
      unknown('server_name'),
      unknown('["odd key"]'),
      unknown('exception.stacktrace[0].vars'),
      unknown('user.segment'),
      unknown('breadcrumbs[0].event_id'),
      unknown('request.cookies'),
      unknown('sdk.integrations'),
    ]);
  });
});

describe('validateEvent: size caps', () => {
  it('truncates a long message and notes it', () => {
    const { event, notes } = accepted({ ...minimal(), message: 'm'.repeat(9000) });
    expect(event.message).toBe('m'.repeat(8192));
    expect(notes).toEqual([{ type: 'value_too_long', path: 'message', message: 'truncated from 9000 to 8192 characters' }]);
  });

  it('truncates other strings to their caps', () => {
    const config = validationConfigSchema.parse({ max_string_length: 5, max_exception_value_length: 6, max_tag_value_length: 3 });
    const body = minimal();
    body.exception.value = 'abcdefghij';
    body.exception.stacktrace[0].function = 'handleClick';
    body.exception.stacktrace[0].pre_context = ['ok', 'too long'];
    body.tags = { k: 'value' };
    const { event, notes } = accepted(body, config);
    expect(event.exception.value).toBe('abcdef');
    expect(event.exception.stacktrace![0]).toEqual({ filename: 'app.j', function: 'handl', pre_context: ['ok', 'too l'] });
    expect(event.tags).toEqual({ k: 'val' });
    expect(notes.map((note) => note.path)).toEqual([
      'environment',
      'release',
      'exception.type',
      'exception.value',
      'exception.stacktrace[0].filename',
      'exception.stacktrace[0].function',
      'exception.stacktrace[0].pre_context[1]',
      'tags.k',
    ]);
    expect(notes.every((note) => note.type === 'value_too_long')).toBe(true);
  });

  it('does not split a surrogate pair', () => {
    const config = validationConfigSchema.parse({ max_message_length: 2 });
    const { event, notes } = accepted({ ...minimal(), message: 'a😀b' }, config);
    expect(event.message).toBe('a');
    expect(notes[0].message).toBe('truncated from 4 to 1 characters');
  });

  it('trims frames beyond max_frames, keeping the innermost (last)', () => {
    const frames = Array.from({ length: 6 }, (_, i) => ({ function: `f${i}`, lineno: i }));
    const body = { ...minimal(), exception: { type: 'E', value: 'v', stacktrace: frames } };
    body.exception.stacktrace[5] = { ...frames[5], extra: true } as (typeof frames)[number];
    const { event, notes } = accepted(body, validationConfigSchema.parse({ max_frames: 3 }));
    expect(event.exception.stacktrace!.map((frame) => frame.function)).toEqual(['f3', 'f4', 'f5']);
    expect(notes).toEqual([
      { type: 'frames_truncated', path: 'exception.stacktrace', message: 'kept the last 3 of 6 frames' },
      // Paths refer to the body as received.
      { type: 'unknown_field', path: 'exception.stacktrace[5].extra', message: 'unknown field, discarded' },
    ]);
  });

  it('keeps an exception.cause chain, checking and capping each exception like the raised one', () => {
    const chain = (depth: number): Record<string, any> =>
      Array.from({ length: depth }).reduceRight<Record<string, any> | undefined>(
        (cause, _, i) => ({ type: `E${i}`, value: `v${i}`, stacktrace: [{ function: `f${i}`, lineno: i }], ...(cause ? { cause } : {}) }),
        undefined,
      )!;
    const body = { ...minimal(), exception: chain(3) };
    body.exception.cause.cause.stacktrace[0].extra = 1;
    const { event, notes } = accepted(body);
    expect(event.exception.cause?.cause?.type).toBe('E2');
    expect(notes).toEqual([{ type: 'unknown_field', path: 'exception.cause.cause.stacktrace[0].extra', message: 'unknown field, discarded' }]);

    const long = accepted({ ...minimal(), exception: chain(6) }, validationConfigSchema.parse({ max_exception_chain: 3 }));
    const types: string[] = [];
    for (let e: ErrorEvent['exception'] | undefined = long.event.exception; e; e = e.cause) types.push(e.type);
    expect(types).toEqual(['E0', 'E1', 'E5']);
    expect(long.notes).toEqual([
      { type: 'chain_truncated', path: 'exception.cause.cause', message: 'kept the outermost 2 exceptions and the root cause, dropped 3 between' },
    ]);
  });

  it('rejects a cause that is not an exception, at its path', () => {
    const errors = errorsOf({ ...minimal(), exception: { type: 'E', value: 'v', cause: { type: '', value: 3 } } });
    expect(errors.map((e) => e.path)).toEqual(['exception.cause.type', 'exception.cause.value']);
  });

  it('keeps the newest breadcrumbs', () => {
    const breadcrumbs = Array.from({ length: 5 }, (_, i) => ({ message: `b${i}` }));
    const { event, notes } = accepted({ ...minimal(), breadcrumbs }, validationConfigSchema.parse({ max_breadcrumbs: 2 }));
    expect(event.breadcrumbs).toEqual([{ message: 'b3' }, { message: 'b4' }]);
    expect(notes).toEqual([{ type: 'breadcrumbs_truncated', path: 'breadcrumbs', message: 'kept the last 2 of 5 breadcrumbs' }]);
  });

  it('drops tags with keys too long or empty, and tags beyond max_tags', () => {
    const config = validationConfigSchema.parse({ max_tags: 2, max_tag_key_length: 5 });
    const tags = { a: '1', toolongkey: '2', '': '3', b: '4', c: '5' };
    const { event, notes } = accepted({ ...minimal(), tags }, config);
    expect(event.tags).toEqual({ a: '1', b: '4' });
    expect(notes).toEqual([
      { type: 'invalid_tag', path: 'tags', message: 'tag key "toolongkey" is longer than 5 characters, tag discarded' },
      { type: 'invalid_tag', path: 'tags', message: 'tag key "" is empty, tag discarded' },
      { type: 'tags_truncated', path: 'tags', message: 'kept the first 2 tags, discarded 1' },
    ]);
  });

  it('keeps the first fingerprint parts', () => {
    const config = validationConfigSchema.parse({ max_fingerprint_parts: 2 });
    const { event, notes } = accepted({ ...minimal(), fingerprint: ['a', 'b', 'c'] }, config);
    expect(event.fingerprint).toEqual(['a', 'b']);
    expect(notes).toEqual([{ type: 'fingerprint_truncated', path: 'fingerprint', message: 'kept the first 2 of 3 parts' }]);
  });

  it('bounds the number of notes', () => {
    const body = minimal();
    for (let i = 0; i < 150; i++) body[`extra${i}`] = i;
    const { notes } = accepted(body);
    expect(notes).toHaveLength(101);
    expect(notes[100]).toEqual({ type: 'notes_truncated', message: '50 further notes omitted' });
  });
});

describe('parseRelease', () => {
  it.each([
    ['app@1.0', { app: 'app', version: '1.0' }],
    ['@scope/pkg@1.2.3', { app: '@scope/pkg', version: '1.2.3' }],
    ['web@2024.05.01+build@7', { app: 'web@2024.05.01+build', version: '7' }],
    ['nover', undefined],
    ['@scope/pkg', undefined],
    ['app@', undefined],
  ])('%s', (release, parsed) => {
    expect(parseRelease(release)).toEqual(parsed);
  });
});

describe('errorEventInputSchema', () => {
  it('describes the ingest body as JSON Schema', () => {
    const schema = errorEventJsonSchema as Record<string, any>;
    expect(schema.required).toEqual(['timestamp', 'environment', 'release', 'exception']);
    expect(schema.properties.timestamp).toMatchObject({ type: 'string', format: 'date-time' });
    expect(schema.properties.user.properties.id.type).toEqual(['string', 'number']);
    expect(schema.properties.exception.properties.stacktrace.items.properties.lineno).toMatchObject({ type: 'integer', minimum: 0 });
  });
});

// Issue #11, item 1: what symbolication needs is accepted, checked field by field, normalized and kept.
describe('validateEvent: symbolication fields', () => {
  const DEBUG_ID = 'C73BCDCC-2669-4BF6-81D3-E4AE73FB11FD';

  function withDebugMeta(images: unknown[], extra: Record<string, unknown> = {}) {
    const body = minimal();
    body.dist = 'android-arm64';
    body.debug_meta = { images, ...extra };
    body.exception.stacktrace = [
      { filename: 'app.min.js', lineno: 1, colno: 3, debug_id: DEBUG_ID },
      { function: 'crash', instruction_addr: '0x7FF6A3C41ABC', module: 'libapp' },
    ];
    return body;
  }

  it('keeps dist, debug_meta and the frames debug_id, instruction_addr and module, normalized, with no unknown_field note', () => {
    const images = [
      { type: 'sourcemap', code_file: 'https://cdn.example.com/app.min.js', debug_id: DEBUG_ID },
      { type: 'proguard', uuid: 'A1B2C3D4E5F60718293A4B5C6D7E8F90' },
      { type: 'elf', debug_id: '3249D99D-0C40-4931-8610-F4E4FB0B6936-1', code_file: '/usr/lib/libapp.so', image_addr: '0x7FF6A3C40000', image_size: 65536 },
      { type: 'macho', debug_id: '3249D99D0C4049318610F4E4FB0B69361', image_addr: '0x1000' },
      { type: 'pe', debug_id: '3249d99d-0c40-4931-8610-f4e4fb0b6936', image_addr: '0x140000000' },
    ];
    const { event, notes } = accepted(withDebugMeta(images));
    expect(notes).toEqual([]);
    expect(event.dist).toBe('android-arm64');
    expect(event.debug_meta).toEqual({
      images: [
        { type: 'sourcemap', code_file: 'https://cdn.example.com/app.min.js', debug_id: 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd' },
        { type: 'proguard', uuid: 'a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90' },
        { type: 'elf', debug_id: '3249d99d-0c40-4931-8610-f4e4fb0b6936-1', code_file: '/usr/lib/libapp.so', image_addr: '0x7ff6a3c40000', image_size: 65536 },
        { type: 'macho', debug_id: '3249d99d0c4049318610f4e4fb0b69361', image_addr: '0x1000' },
        { type: 'pe', debug_id: '3249d99d-0c40-4931-8610-f4e4fb0b6936', image_addr: '0x140000000' },
      ],
    });
    expect(event.exception.stacktrace).toEqual([
      { filename: 'app.min.js', lineno: 1, colno: 3, debug_id: 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd' },
      { function: 'crash', instruction_addr: '0x7ff6a3c41abc', module: 'libapp' },
    ]);
  });

  it('discards images of other types with a note, and the unknown fields of known ones', () => {
    const images = [
      { type: 'wasm', debug_id: DEBUG_ID, code_file: 'app.wasm' },
      { type: 'sourcemap', code_file: 'app.js', debug_id: DEBUG_ID, debug_file: 'app.js.map' },
      { type: 'symbolic' },
    ];
    const { event, notes } = accepted(withDebugMeta(images, { sdk_info: { sdk_name: 'ios' } }));
    expect(event.debug_meta).toEqual({ images: [{ type: 'sourcemap', code_file: 'app.js', debug_id: 'c73bcdcc-2669-4bf6-81d3-e4ae73fb11fd' }] });
    expect(notes).toEqual([
      { type: 'unknown_field', path: 'debug_meta.sdk_info', message: 'unknown field, discarded' },
      { type: 'unsupported_image', path: 'debug_meta.images[0]', message: 'image type "wasm" is not one symbolication uses, discarded' },
      { type: 'unknown_field', path: 'debug_meta.images[1].debug_file', message: 'unknown field, discarded' },
      { type: 'unsupported_image', path: 'debug_meta.images[2]', message: 'image type "symbolic" is not one symbolication uses, discarded' },
    ]);
  });

  it.each([
    ['dist', '', 'must not be empty'],
    ['dist', 'd'.repeat(65), 'must be at most 64 characters'],
    ['dist', 7, 'expected a string, got number'],
    ['debug_meta', [], 'expected an object, got array'],
    ['debug_meta.images', undefined, 'is required'],
    ['debug_meta.images', {}, 'expected an array, got object'],
    ['debug_meta.images[0]', 'app.js', 'expected an object, got string'],
    ['debug_meta.images[0].type', undefined, 'is required'],
    ['debug_meta.images[0].type', 3, 'expected a string, got number'],
    ['debug_meta.images[0].debug_id', 'not-a-uuid', expect.stringMatching(/^must be a UUID/)],
    ['debug_meta.images[0].debug_id', undefined, 'is required'],
    ['debug_meta.images[0].code_file', 5, 'expected a string, got number'],
    ['debug_meta.images[1].uuid', 'abc', expect.stringMatching(/^must be a UUID/)],
    ['debug_meta.images[2].image_addr', '7ff6a3c40000', 'must be a hex address, e.g. 0x7ff6a3c41000'],
    ['debug_meta.images[2].image_addr', undefined, 'is required'],
    ['debug_meta.images[2].debug_id', 'xyz', 'must be a debug id: a UUID with an optional age (…-1), or 32-40 hex digits'],
    ['debug_meta.images[2].image_size', -1, 'must be 0 or greater'],
    ['debug_meta.images[2].code_file', false, 'expected a string, got boolean'],
    ['exception.stacktrace[0].debug_id', 'c73bcdcc', expect.stringMatching(/^must be a UUID/)],
    ['exception.stacktrace[0].debug_id', 12, 'expected a string, got number'],
    ['exception.stacktrace[1].instruction_addr', '12345', 'must be a hex address, e.g. 0x7ff6a3c41000'],
    ['exception.stacktrace[1].instruction_addr', '0xZZ', 'must be a hex address, e.g. 0x7ff6a3c41000'],
    ['exception.stacktrace[1].module', 1, 'expected a string, got number'],
  ])('%s = %j: %s', (path, value, message) => {
    const body = withDebugMeta([
      { type: 'sourcemap', code_file: 'app.js', debug_id: DEBUG_ID },
      { type: 'proguard', uuid: DEBUG_ID },
      { type: 'elf', debug_id: DEBUG_ID, image_addr: '0x1000' },
    ]);
    expect(errorsOf(setAt(body, path, value))).toEqual([{ path, message }]);
  });

  it('describes debug_meta images by type in the JSON Schema', () => {
    const schema = errorEventJsonSchema as Record<string, any>;
    const image = schema.properties.debug_meta.properties.images.items;
    expect(image.anyOf.map((branch: any) => branch.properties.type)).toEqual([
      { type: 'string', const: 'sourcemap' },
      { type: 'string', const: 'proguard' },
      { type: 'string', enum: ['elf', 'macho', 'pe'] },
    ]);
    expect(schema.properties.dist).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 });
    expect(schema.properties.exception.properties.stacktrace.items.properties.instruction_addr.pattern).toBeDefined();
  });
});
