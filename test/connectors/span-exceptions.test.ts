import { describe, it, expect } from 'vitest';
import { errorEventInputSchema } from '../../src/records/event-schema.js';
import type { Span, SpanEvent } from '../../src/records/span.js';
import { deterministicUuid, exceptionEventsFromSpan, isoFromNanos } from '../../connectors/exceptions/span-exceptions.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const NODE_STACK = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  '    at getUser (/srv/api/src/users.js:12:20)',
  '    at async handler (/srv/api/src/routes.js:30:5)',
  '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
].join('\n');

function exceptionEvent(overrides: Partial<SpanEvent> = {}, attributes: SpanEvent['attributes'] = {}): SpanEvent {
  return {
    name: 'exception',
    time_unix_nano: 1700000000123456789n,
    attributes: {
      'exception.type': 'TypeError',
      'exception.message': "Cannot read properties of undefined (reading 'id')",
      'exception.stacktrace': NODE_STACK,
      ...attributes,
    },
    ...overrides,
  };
}

function makeSpan(overrides: Partial<Span> = {}): Span {
  return {
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    span_id: '00f067aa0ba902b7',
    parent_span_id: 'a3ce929d0e0e4736',
    name: 'GET /users/:id',
    service_name: 'api',
    start_time_unix_nano: 1700000000000000000n,
    end_time_unix_nano: 1700000000200000000n,
    status: 'error',
    kind: 'server',
    attributes: { 'http.route': '/users/:id', 'http.request.method': 'GET', 'http.response.status_code': 500, 'user.id': 'u1' },
    resource_attributes: {
      'service.name': 'api',
      'service.version': '1.4.2',
      'deployment.environment.name': 'staging',
      'telemetry.sdk.language': 'nodejs',
      'telemetry.sdk.name': 'opentelemetry',
      'telemetry.sdk.version': '1.25.0',
    },
    events: [exceptionEvent()],
    links: [],
    project_id: 'proj_api',
    received_at: '2023-11-14T22:13:21.000Z',
    ...overrides,
  };
}

function expectValid(bodies: Record<string, unknown>[]): void {
  for (const body of bodies) {
    const result = errorEventInputSchema.safeParse(body);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  }
}

describe('exceptionEventsFromSpan', () => {
  it('makes one event body per exception span event', () => {
    const [body, ...rest] = exceptionEventsFromSpan(makeSpan());
    expect(rest).toEqual([]);
    expectValid([body]);
    expect(body).toMatchObject({
      timestamp: '2023-11-14T22:13:20.123Z',
      environment: 'staging',
      release: 'api@1.4.2',
      level: 'error',
      platform: 'node',
      trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
      exception: { type: 'TypeError', value: "Cannot read properties of undefined (reading 'id')" },
      tags: {
        'service.name': 'api',
        'span.name': 'GET /users/:id',
        'span.kind': 'server',
        'http.route': '/users/:id',
        'http.request.method': 'GET',
        'http.response.status_code': '500',
      },
      contexts: {
        trace: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', parent_span_id: 'a3ce929d0e0e4736', status: 'error' },
      },
      sdk: { name: 'opentelemetry', version: '1.25.0' },
    });
    expect(body.id).toMatch(UUID);
    expect(body).not.toHaveProperty('message');
    expect(Object.keys(body.tags as object)).toHaveLength(6); // user.id is not copied
  });

  it('parses the stack trace, crash last', () => {
    const [body] = exceptionEventsFromSpan(makeSpan());
    const exception = body.exception as { stacktrace: { function?: string; in_app?: boolean; lineno?: number }[] };
    expect(exception.stacktrace.map((frame) => [frame.function, frame.lineno, frame.in_app])).toEqual([
      ['process.processTicksAndRejections', 95, false],
      ['handler', 30, true],
      ['getUser', 12, true],
    ]);
  });

  it('uses the SDK language to pick the stack format', () => {
    const python = 'Traceback (most recent call last):\n  File "app.py", line 3, in main\n    boom()\nValueError: x';
    const span = makeSpan({
      resource_attributes: { 'service.name': 'worker', 'telemetry.sdk.language': 'python' },
      events: [exceptionEvent({}, { 'exception.type': 'ValueError', 'exception.message': 'x', 'exception.stacktrace': python })],
    });
    const [body] = exceptionEventsFromSpan(span);
    expectValid([body]);
    expect(body.platform).toBe('python');
    expect(body.exception).toEqual({
      type: 'ValueError',
      value: 'x',
      stacktrace: [{ filename: 'app.py', module: 'app', function: 'main', lineno: 3, context_line: 'boom()', in_app: true, platform: 'python' }],
    });
  });

  it('gives the same id to the same span sent twice, different ids to different events', () => {
    const span = makeSpan({ events: [exceptionEvent(), exceptionEvent()] });
    const first = exceptionEventsFromSpan(span);
    const again = exceptionEventsFromSpan(structuredClone(span));
    expect(first.map((body) => body.id)).toEqual(again.map((body) => body.id));
    expect(first[0].id).not.toBe(first[1].id); // same time, different index
    for (const body of first) expect(body.id).toMatch(UUID);
    expectValid(first);

    const idOf = (overrides: Partial<Span>) => exceptionEventsFromSpan(makeSpan(overrides))[0].id;
    const base = idOf({});
    expect(idOf({ span_id: 'b7ad6b7169203331' })).not.toBe(base);
    expect(idOf({ trace_id: '0af7651916cd43dd8448eb211c80319c' })).not.toBe(base);
    expect(idOf({ events: [exceptionEvent({ time_unix_nano: 1700000000123456790n })] })).not.toBe(base);
    // What does not identify the occurrence does not change the id.
    expect(idOf({ name: 'renamed', received_at: '2024-01-01T00:00:00.000Z' })).toBe(base);
  });

  it('derives ids from the index in span.events, skipping other events', () => {
    const log: SpanEvent = { name: 'log', time_unix_nano: 1700000000000000000n, attributes: { message: 'hi' } };
    const bodies = exceptionEventsFromSpan(makeSpan({ events: [log, exceptionEvent(), log, exceptionEvent({ name: 'Exception' })] }));
    expect(bodies).toHaveLength(1);
    expect(bodies[0].id).not.toBe(exceptionEventsFromSpan(makeSpan())[0].id);
  });

  it('returns [] for a span without exception events', () => {
    expect(exceptionEventsFromSpan(makeSpan({ events: [] }))).toEqual([]);
  });

  it('falls back for the environment', () => {
    const envOf = (resource: Span['resource_attributes']) => exceptionEventsFromSpan(makeSpan({ resource_attributes: resource }))[0].environment;
    expect(envOf({ 'deployment.environment.name': 'prod-eu', 'deployment.environment': 'old' })).toBe('prod-eu');
    expect(envOf({ 'deployment.environment': 'old' })).toBe('old');
    expect(envOf({ 'deployment.environment.name': '', 'deployment.environment': 'old' })).toBe('old');
    expect(envOf({})).toBe('production');
  });

  it('falls back for the release', () => {
    const releaseOf = (overrides: Partial<Span>) => exceptionEventsFromSpan(makeSpan(overrides))[0];
    expect(releaseOf({ resource_attributes: { 'service.name': 'api' } }).release).toBe('api');
    expect(releaseOf({ service_name: 'unknown_service', resource_attributes: { 'service.version': '2.0' } }).release).toBe('unknown@2.0');
    const none = releaseOf({ service_name: 'unknown_service', resource_attributes: {} });
    expect(none.release).toBe('unknown');
    expect(none.tags).not.toHaveProperty('service.name');
    expect(none).not.toHaveProperty('platform');
    expect(none).not.toHaveProperty('sdk');
    expect(releaseOf({ service_name: 'unknown_service', resource_attributes: { 'service.name': 'from-resource', 'service.version': '3' } }).release).toBe(
      'from-resource@3',
    );
    expectValid([none]);
  });

  it('defaults the exception type and value, and omits an empty stack trace', () => {
    const bodies = exceptionEventsFromSpan(
      makeSpan({
        events: [
          { name: 'exception', time_unix_nano: 1700000000000000000n, attributes: {} },
          { name: 'exception', time_unix_nano: 1700000000000000000n, attributes: { 'exception.stacktrace': '   ' } },
          { name: 'exception', time_unix_nano: 1700000000000000000n, attributes: { 'exception.type': 'Boom', 'exception.stacktrace': 'no frames here' } },
        ],
      }),
    );
    expectValid(bodies);
    expect(bodies.map((body) => body.exception)).toEqual([
      { type: 'Error', value: '' },
      { type: 'Error', value: '' },
      { type: 'Boom', value: '' },
    ]);
  });

  it('keeps level error and records exception.escaped in contexts', () => {
    const [escaped, notEscaped] = exceptionEventsFromSpan(
      makeSpan({ events: [exceptionEvent({}, { 'exception.escaped': true }), exceptionEvent({}, { 'exception.escaped': false })] }),
    );
    expect(escaped.level).toBe('error');
    expect((escaped.contexts as Record<string, unknown>).exception).toEqual({ escaped: true });
    expect((notEscaped.contexts as Record<string, unknown>).exception).toEqual({ escaped: false });
  });

  it('omits parent_span_id for a root span and reads older HTTP attribute names', () => {
    const [body] = exceptionEventsFromSpan(
      makeSpan({ parent_span_id: '', status: 'unset', kind: 'client', attributes: { 'http.method': 'POST', 'http.status_code': 503 } }),
    );
    expectValid([body]);
    expect((body.contexts as { trace: object }).trace).toEqual({ trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7', status: 'unset' });
    expect(body.tags).toEqual({
      'service.name': 'api',
      'span.name': 'GET /users/:id',
      'span.kind': 'client',
      'http.request.method': 'POST',
      'http.response.status_code': '503',
    });
  });

  it('falls back to the span end time when the event has none', () => {
    const [body] = exceptionEventsFromSpan(makeSpan({ events: [exceptionEvent({ time_unix_nano: 0n })] }));
    expect(body.timestamp).toBe('2023-11-14T22:13:20.200Z');
    expectValid([body]);
  });
});

describe('isoFromNanos', () => {
  it('is exact to the millisecond, cutting (not rounding) what is below', () => {
    expect(isoFromNanos(1700000000123456789n)).toBe('2023-11-14T22:13:20.123Z');
    expect(isoFromNanos(1700000000999999999n)).toBe('2023-11-14T22:13:20.999Z');
    expect(isoFromNanos(1n)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('refuses what an ISO 8601 four-digit year cannot say', () => {
    expect(isoFromNanos(0n)).toBeUndefined();
    expect(isoFromNanos(-5n)).toBeUndefined();
    expect(isoFromNanos(253402300800000n * 1_000_000n)).toBeUndefined();
    expect(isoFromNanos(253402300799999n * 1_000_000n)).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('deterministicUuid', () => {
  it('is a lower-case version-8 UUID that depends on every part, without ambiguity', () => {
    expect(deterministicUuid('a', 'b')).toMatch(UUID);
    expect(deterministicUuid('a', 'b')).toBe(deterministicUuid('a', 'b'));
    expect(deterministicUuid('a', 'b')).not.toBe(deterministicUuid('ab', ''));
    expect(deterministicUuid('a', 'b')).not.toBe(deterministicUuid('b', 'a'));
  });
});

describe('exceptionEventsFromSpan: Java cause chains', () => {
  const JAVA_STACK = [
    'java.util.concurrent.CompletionException: java.util.concurrent.TimeoutException: after 3000 ms',
    '\tat java.base/java.util.concurrent.CompletableFuture.encodeThrowable(CompletableFuture.java:332)',
    '\tat com.acme.orders.Checkout.await(Checkout.java:40)',
    '\tSuppressed: java.lang.IllegalStateException: close failed',
    '\t\tat com.acme.orders.Res.close(Res.java:3)',
    '\t\tCaused by: java.io.IOException: not this one',
    'Caused by: java.util.concurrent.TimeoutException: after 3000 ms',
    '\tat com.acme.payments.PaymentClient.charge(PaymentClient.java:77)',
    '\t... 2 more',
    'Caused by: java.net.SocketTimeoutException',
    '\tat java.base/java.net.Socket.read(Socket.java:10)',
  ].join('\n');

  it('turns `Caused by:` sections into exception.cause, outermost first, leaving suppressed ones out', () => {
    const span = makeSpan({
      resource_attributes: { 'service.name': 'orders', 'telemetry.sdk.language': 'java' },
      events: [
        exceptionEvent(
          {},
          { 'exception.type': 'java.util.concurrent.CompletionException', 'exception.message': 'timeout', 'exception.stacktrace': JAVA_STACK },
        ),
      ],
    });
    const [body] = exceptionEventsFromSpan(span);
    expectValid([body]);
    const exception = body.exception as {
      cause?: { type: string; value: string; stacktrace?: Array<{ function?: string }>; cause?: { type: string; value: string } };
    };
    expect(exception.cause).toMatchObject({ type: 'java.util.concurrent.TimeoutException', value: 'after 3000 ms', stacktrace: [{ function: 'charge' }] });
    expect(exception.cause?.cause).toMatchObject({ type: 'java.net.SocketTimeoutException', value: '' });
  });
});
