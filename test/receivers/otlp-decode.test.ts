// The OTLP trace decoders, fed with request bodies that the OpenTelemetry JS SDK's own OTLP
// serializers (@opentelemetry/otlp-transformer) produce from real spans, plus hand-built bodies
// for what the SDK never sends (int64 beyond 2^53, kvlists, bytes, unknown enum values, ...).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, createTraceState, trace, type HrTime } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { packageRoot } from '../../src/paths.js';
import type { SpanInput } from '../../src/records/span.js';
import {
  OtlpDecodeError,
  countSpans,
  otlpIdErrors,
  decodeTraceRequestJson,
  decodeTraceRequestProtobuf,
  encodeStatusJson,
  encodeStatusProtobuf,
  encodeTraceResponseJson,
  encodeTraceResponseProtobuf,
  type DecodedTraceRequest,
} from '../../src/otlp/decode/index.js';
import {
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
  KeyValue,
  PROTO_DIR,
  PROTO_FILE_NAMES,
  ResourceSpans,
  RpcStatus,
  ScopeSpans,
  otlpRoot,
} from '../../src/otlp/decode/schema.js';

const nanos = (time: HrTime): bigint => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);

const REMOTE_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const REMOTE_SPAN_ID = 'b7ad6b7169203331';
const LINKED_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const LINKED_SPAN_ID = '00f067aa0ba902b7';

/** A small trace recorded with the real SDK: a server span under a remote parent, two children, a link. */
function recordSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'checkout', 'deployment.environment.name': 'test', 'host.cpu.count': 8 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('faultline-test', '1.2.3');
  const remote = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: REMOTE_TRACE_ID,
    spanId: REMOTE_SPAN_ID,
    traceFlags: 1,
    isRemote: true,
    traceState: createTraceState('vendor=abc,other=1'),
  });
  const server = tracer.startSpan(
    'POST /checkout',
    {
      kind: SpanKind.SERVER,
      startTime: [1_700_000_000, 123_456_789],
      attributes: {
        'http.request.method': 'POST',
        'http.response.status_code': 500,
        'server.duration': 12.75,
        'user.authenticated': true,
        'feature.flags': ['a', 'b'],
        'retry.delays': [1, 2, 3],
        weights: [0.5, 1.25],
        checks: [true, false],
      },
    },
    remote,
  );
  const inServer = trace.setSpan(ROOT_CONTEXT, server);
  const client = tracer.startSpan(
    'GET payments',
    {
      kind: SpanKind.CLIENT,
      startTime: [1_700_000_000, 200_000_001],
      links: [
        {
          context: { traceId: LINKED_TRACE_ID, spanId: LINKED_SPAN_ID, traceFlags: 1, traceState: createTraceState('k=v') },
          attributes: { 'link.reason': 'retry-of', 'link.attempt': 2 },
        },
      ],
    },
    inServer,
  );
  client.addEvent('retry', { attempt: 1 }, [1_700_000_000, 300_000_000]);
  client.recordException(new TypeError('card declined'), [1_700_000_000, 350_000_999]);
  client.setStatus({ code: SpanStatusCode.ERROR, message: 'payment declined' });
  client.end([1_700_000_000, 400_000_000]);
  const producer = tracer.startSpan('publish order', { kind: SpanKind.PRODUCER, startTime: [1_700_000_000, 410_000_000] }, inServer);
  producer.setStatus({ code: SpanStatusCode.OK });
  producer.end([1_700_000_000, 420_000_000]);
  const consumer = tracer.startSpan('consume order', { kind: SpanKind.CONSUMER, startTime: [1_700_000_001, 0] });
  consumer.end([1_700_000_001, 999_999_999]);
  const internal = tracer.startSpan('render', { startTime: [1_700_000_000, 430_000_000] }, inServer);
  internal.end([1_700_000_000, 440_000_000]);
  server.setStatus({ code: SpanStatusCode.ERROR });
  server.end([1_700_000_000, 500_000_000]);
  return exporter.getFinishedSpans();
}

const spans = recordSpans();
const protobufBody = ProtobufTraceSerializer.serializeRequest(spans)!;
const jsonBody = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!);

function allSpans(request: DecodedTraceRequest): SpanInput[] {
  return request.resourceSpans.flatMap((rs) => rs.spans);
}

function byName(request: DecodedTraceRequest, name: string): SpanInput {
  const span = allSpans(request).find((s) => s.name === name);
  if (!span) throw new Error(`no span ${name}`);
  return span;
}

/** A protobuf body built with our own schema (for what the SDK does not send). */
function handBuilt(resourceSpans: unknown[]): Uint8Array {
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans })).finish();
}

/**
 * The reference decoding: protobufjs' own, schema-driven decode of the body, turned into
 * OTLP/JSON (ids from base64 to hex) and read by the JSON decoder. The protobuf decoder reads the
 * wire by hand, so this checks it against an independent reading of the same bytes.
 */
function viaProtobufjs(body: Uint8Array): DecodedTraceRequest {
  type Obj = Record<string, unknown> & { resourceSpans?: { scopeSpans?: { spans?: (Record<string, string> & { links?: Record<string, string>[] })[] }[] }[] };
  const object = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), { longs: String, bytes: String, json: true }) as Obj;
  const hex = (o: Record<string, string>, key: string) => {
    if (o[key] !== undefined) o[key] = Buffer.from(o[key], 'base64').toString('hex');
  };
  for (const rs of object.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? []) {
        for (const key of ['traceId', 'spanId', 'parentSpanId']) hex(span, key);
        for (const link of span.links ?? []) for (const key of ['traceId', 'spanId']) hex(link, key);
      }
  return decodeTraceRequestJson(JSON.stringify(object));
}

/**
 * Re-encodes a message with, at every level, its fields in descending field-number order
 * (repeated fields keep their order), and before each field an unknown field (of each wire type
 * in turn, groups included) and a known field number with a wire type it does not have. A decoder
 * must read the result exactly like the original.
 */
function scramble(type: protobuf.Type, bytes: Uint8Array): Buffer {
  const reader = protobuf.Reader.create(bytes);
  const fields: { id: number; bytes: Buffer }[] = [];
  const tagBytes = (id: number, wireType: number) =>
    Buffer.from(
      protobuf.Writer.create()
        .uint32((id << 3) | wireType)
        .finish(),
    );
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const id = tag >>> 3;
    const wireType = tag & 7;
    const field = type.fieldsById[id];
    if (wireType === 2) {
      let content: Uint8Array = reader.bytes();
      if (field?.resolvedType instanceof protobuf.Type) content = scramble(field.resolvedType, content);
      fields.push({ id, bytes: Buffer.concat([tagBytes(id, 2), Buffer.from(protobuf.Writer.create().bytes(content).finish())]) });
    } else {
      const start = reader.pos;
      reader.skipType(wireType);
      fields.push({ id, bytes: Buffer.concat([tagBytes(id, wireType), bytes.subarray(start, reader.pos)]) });
    }
  }
  fields.sort((a, b) => b.id - a.id);
  const unknown = [
    Buffer.concat([tagBytes(1001, 0), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])]),
    Buffer.concat([tagBytes(1002, 1), Buffer.alloc(8, 7)]),
    Buffer.concat([tagBytes(1003, 2), Buffer.from([3, 1, 2, 3])]),
    Buffer.concat([tagBytes(1004, 3), tagBytes(1, 0), Buffer.from([5]), tagBytes(2, 3), tagBytes(2, 4), tagBytes(1004, 4)]),
    Buffer.concat([tagBytes(1005, 5), Buffer.alloc(4, 9)]),
  ];
  const parts: Buffer[] = [];
  fields.forEach((field, i) => {
    parts.push(unknown[i % unknown.length], tagBytes((i % 3) + 1, 5), Buffer.alloc(4, 1), field.bytes);
  });
  parts.push(unknown[fields.length % unknown.length]);
  return Buffer.concat(parts);
}

const ids = { traceId: Buffer.from(REMOTE_TRACE_ID, 'hex'), spanId: Buffer.from(REMOTE_SPAN_ID, 'hex') };

function expectDecodeError(run: () => unknown, encoding: 'protobuf' | 'json', message?: RegExp): OtlpDecodeError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OtlpDecodeError);
  const error = caught as OtlpDecodeError;
  expect(error.encoding).toBe(encoding);
  if (message) expect(error.message).toMatch(message);
  return error;
}

describe('the OTLP schema', () => {
  it('is every .proto of src/otlp/proto, resolved', () => {
    const dir = join(packageRoot, 'src/otlp/proto');
    expect(PROTO_DIR).toBe(dir);
    expect([...PROTO_FILE_NAMES].sort()).toEqual(
      readdirSync(dir)
        .filter((f) => f.endsWith('.proto'))
        .sort(),
    );
    const fromFiles = new protobuf.Root();
    fromFiles.loadSync(PROTO_FILE_NAMES.map((name) => join(dir, name)));
    fromFiles.resolveAll();
    expect(otlpRoot.toJSON()).toEqual(fromFiles.toJSON());
  });

  it('knows every field the OpenTelemetry JS serializer writes (no unknown fields on the wire)', () => {
    const reader = protobuf.Reader.create(protobufBody);
    reader.discardUnknown = false;
    const message = ExportTraceServiceRequest.decode(reader);
    const unknowns: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (typeof value !== 'object' || value === null || value instanceof Uint8Array) return;
      if (Object.hasOwn(value, '$unknowns')) unknowns.push(path);
      for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
    };
    walk(message, '');
    expect(unknowns).toEqual([]);
    expect(ExportTraceServiceRequest.toObject(message, { longs: String }).resourceSpans[0].scopeSpans[0].spans).toHaveLength(spans.length);
  });
});

describe('decodeTraceRequestProtobuf', () => {
  const decoded = decodeTraceRequestProtobuf(protobufBody);

  it('gives one span input per span, grouped by resource', () => {
    expect(decoded.resourceSpans).toHaveLength(1);
    expect(countSpans(decoded)).toBe(spans.length);
    expect(decoded.resourceSpans[0].resource).toEqual({
      'service.name': 'checkout',
      'deployment.environment.name': 'test',
      'host.cpu.count': 8,
    });
    for (const span of allSpans(decoded)) {
      expect(span.service_name).toBe('checkout');
      expect(span.resource_attributes).toBe(decoded.resourceSpans[0].resource);
      expect(span.scope).toEqual({ name: 'faultline-test', version: '1.2.3' });
    }
  });

  it('keeps the ids and parent ids of a nested trace as lower-case hex', () => {
    const server = byName(decoded, 'POST /checkout');
    expect(server.trace_id).toBe(REMOTE_TRACE_ID);
    expect(server.parent_span_id).toBe(REMOTE_SPAN_ID);
    expect(server.trace_state).toBe('vendor=abc,other=1');
    for (const name of ['GET payments', 'publish order', 'render']) {
      const child = byName(decoded, name);
      expect(child.trace_id).toBe(REMOTE_TRACE_ID);
      expect(child.parent_span_id).toBe(server.span_id);
    }
    const root = byName(decoded, 'consume order');
    expect(root.parent_span_id).toBe('');
    expect(root).not.toHaveProperty('trace_state');
    for (const span of allSpans(decoded)) {
      const source = spans.find((s) => s.name === span.name)!;
      expect(span.span_id).toBe(source.spanContext().spanId);
      expect(span.trace_id).toBe(source.spanContext().traceId);
      expect(span.span_id).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('gives exact nanosecond times', () => {
    for (const source of spans) {
      const span = byName(decoded, source.name);
      expect(span.start_time).toBe(nanos(source.startTime));
      expect(span.end_time).toBe(nanos(source.endTime));
      expect(source.events.map((e) => nanos(e.time))).toEqual((span.events as { time: bigint }[]).map((e) => e.time));
    }
    expect(byName(decoded, 'POST /checkout').start_time).toBe(1_700_000_000_123_456_789n);
    expect(byName(decoded, 'consume order').end_time).toBe(1_700_000_001_999_999_999n);
  });

  it('keeps every attribute type', () => {
    expect(byName(decoded, 'POST /checkout').attributes).toEqual({
      'http.request.method': 'POST',
      'http.response.status_code': 500,
      'server.duration': 12.75,
      'user.authenticated': true,
      'feature.flags': ['a', 'b'],
      'retry.delays': [1, 2, 3],
      weights: [0.5, 1.25],
      checks: [true, false],
    });
  });

  it('maps status and kind', () => {
    const expected: Record<string, [string, string, string | undefined]> = {
      'POST /checkout': ['server', 'error', undefined],
      'GET payments': ['client', 'error', 'payment declined'],
      'publish order': ['producer', 'ok', undefined],
      'consume order': ['consumer', 'unset', undefined],
      render: ['internal', 'unset', undefined],
    };
    for (const [name, [kind, status, message]] of Object.entries(expected)) {
      const span = byName(decoded, name);
      expect([span.kind, span.status, span.status_message]).toEqual([kind, status, message]);
    }
    expect(byName(decoded, 'POST /checkout')).not.toHaveProperty('status_message');
  });

  it('keeps events, with the exception event of recordException', () => {
    const client = byName(decoded, 'GET payments');
    expect(client.events).toEqual([
      { name: 'retry', time: 1_700_000_000_300_000_000n, attributes: { attempt: 1 } },
      {
        name: 'exception',
        time: 1_700_000_000_350_000_999n,
        attributes: {
          'exception.type': 'TypeError',
          'exception.message': 'card declined',
          'exception.stacktrace': expect.stringContaining('TypeError: card declined'),
        },
      },
    ]);
  });

  it('keeps links', () => {
    expect(byName(decoded, 'GET payments').links).toEqual([
      { trace_id: LINKED_TRACE_ID, span_id: LINKED_SPAN_ID, trace_state: 'k=v', attributes: { 'link.reason': 'retry-of', 'link.attempt': 2 } },
    ]);
    expect(byName(decoded, 'render').links).toEqual([]);
  });

  it('decodes like protobufjs does', () => {
    expect(decoded).toStrictEqual(viaProtobufjs(protobufBody));
  });

  it('reads fields in any order, merges a message given twice, and skips unknown fields and wrong wire types', () => {
    const scrambled = scramble(ExportTraceServiceRequest, protobufBody);
    expect(scrambled.length).toBeGreaterThan(protobufBody.length * 1.5);
    expect(decodeTraceRequestProtobuf(scrambled)).toStrictEqual(decoded);
    expect(viaProtobufjs(scrambled)).toStrictEqual(decoded);
    // Non-repeated message fields given twice merge: a resource in two parts; a scope in two
    // parts (in a second ScopeSpans, whose scope's later name wins).
    const tag = (id: number) => Buffer.from([(id << 3) | 2]);
    const len = (bytes: Uint8Array) => Buffer.from(protobuf.Writer.create().bytes(bytes).finish());
    const resourceSpans = ResourceSpans.encode(
      ResourceSpans.fromObject({
        resource: { attributes: [{ key: 'a', value: { intValue: 1 } }] },
        scopeSpans: [{ scope: { name: 'first', version: '1' }, spans: [{ ...ids, name: 'x', status: { code: 2 } }] }],
      }),
    ).finish();
    const scopeSpans = ScopeSpans.encode(ScopeSpans.fromObject({ scope: { name: 'first', version: '1' }, spans: [{ ...ids, name: 'x' }] })).finish();
    const resource2 = Buffer.concat([
      tag(1),
      len(Buffer.concat([tag(1), len(KeyValue.encode(KeyValue.fromObject({ key: 'b', value: { stringValue: 'two' } })).finish())])),
    ]);
    const scope2 = Buffer.concat([tag(1), len(Buffer.concat([tag(1), len(Buffer.from('second'))]))]);
    const body = Buffer.concat([tag(1), len(Buffer.concat([resourceSpans, resource2, tag(2), len(Buffer.concat([scopeSpans, scope2]))]))]);
    const result = decodeTraceRequestProtobuf(body);
    expect(result).toStrictEqual(viaProtobufjs(body));
    expect(result.resourceSpans[0].resource).toEqual({ a: 1, b: 'two' });
    expect(result.resourceSpans[0].spans.map((s) => s.scope)).toEqual([
      { name: 'first', version: '1' },
      { name: 'second', version: '1' },
    ]);
  });

  it('reads a Uint8Array that is not a Buffer, at an offset', () => {
    const padded = new Uint8Array(protobufBody.length + 7);
    padded.set(protobufBody, 7);
    expect(decodeTraceRequestProtobuf(padded.subarray(7))).toStrictEqual(decoded);
    expect(decodeTraceRequestProtobuf(Buffer.from(padded.buffer, 7))).toStrictEqual(decoded);
  });

  it('reads an empty body as an empty request', () => {
    expect(decodeTraceRequestProtobuf(new Uint8Array(0))).toEqual({ resourceSpans: [] });
  });

  it('reads int64 values beyond 2^53 as decimal strings, and the other AnyValue kinds', () => {
    const body = handBuilt([
      {
        scopeSpans: [
          {
            spans: [
              {
                ...ids,
                name: 'big',
                kind: 9,
                startTimeUnixNano: '18446744073709551615',
                endTimeUnixNano: 1n,
                status: { code: 7 },
                attributes: [
                  { key: 'max_safe', value: { intValue: '9007199254740991' } },
                  { key: 'min_safe', value: { intValue: '-9007199254740991' } },
                  { key: 'beyond', value: { intValue: '9007199254740993' } },
                  { key: 'below', value: { intValue: '-9007199254740993' } },
                  { key: 'int64_max', value: { intValue: '9223372036854775807' } },
                  { key: 'int64_min', value: { intValue: '-9223372036854775808' } },
                  { key: 'minus_one', value: { intValue: -1 } },
                  { key: 'bytes', value: { bytesValue: Buffer.from([0, 1, 2, 250]) } },
                  { key: 'empty', value: {} },
                  { key: 'no_value' },
                  { key: 'empty_string', value: { stringValue: '' } },
                  { key: 'zero', value: { intValue: 0 } },
                  { key: 'false', value: { boolValue: false } },
                  { key: 'nan', value: { doubleValue: NaN } },
                  { key: 'inf', value: { doubleValue: -Infinity } },
                  { key: '__proto__', value: { stringValue: 'kept' } },
                  {
                    key: 'map',
                    value: {
                      kvlistValue: {
                        values: [
                          { key: 'a', value: { intValue: 1 } },
                          { key: 'nested', value: { kvlistValue: { values: [{ key: 'b', value: { arrayValue: { values: [{ stringValue: 'x' }, {}] } } }] } } },
                        ],
                      },
                    },
                  },
                  { key: 'empty_array', value: { arrayValue: {} } },
                ],
              },
            ],
          },
        ],
      },
    ]);
    const decodedBody = decodeTraceRequestProtobuf(body);
    expect(decodedBody).toStrictEqual(viaProtobufjs(body));
    const [span] = allSpans(decodedBody);
    const attributes = span.attributes as Record<string, unknown>;
    expect(Object.hasOwn(attributes, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect({ ...attributes }).toEqual({
      max_safe: 9007199254740991,
      min_safe: -9007199254740991,
      beyond: '9007199254740993',
      below: '-9007199254740993',
      int64_max: '9223372036854775807',
      int64_min: '-9223372036854775808',
      minus_one: -1,
      bytes: 'AAEC+g==',
      empty: null,
      no_value: null,
      empty_string: '',
      zero: 0,
      false: false,
      nan: 'NaN',
      inf: '-Infinity',
      ['__proto__']: 'kept',
      map: { a: 1, nested: { b: ['x', null] } },
      empty_array: [],
    });
    expect(span).toMatchObject({
      kind: 'unspecified',
      status: 'unset',
      service_name: 'unknown_service',
      resource_attributes: {},
      start_time: 18446744073709551615n,
      end_time: 1n,
      parent_span_id: '',
    });
    expect(span).not.toHaveProperty('scope');
  });

  it('maps every span kind and status code number', () => {
    const kinds = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
    const statuses = ['unset', 'ok', 'error'];
    const body = handBuilt([
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 's', attributes: [{ key: 'scope.attr', value: { boolValue: true } }] },
            spans: [
              ...kinds.map((_, i) => ({ ...ids, kind: i, status: { code: i % 3 } })),
              { ...ids, kind: -1, status: { code: -1 } },
              { ...ids, kind: 6, status: { code: 3 } },
            ],
          },
        ],
      },
    ]);
    const decodedSpans = allSpans(decodeTraceRequestProtobuf(body));
    expect(decodeTraceRequestProtobuf(body)).toStrictEqual(viaProtobufjs(body));
    expect(decodedSpans.map((s) => s.kind)).toEqual([...kinds, 'unspecified', 'unspecified']);
    expect(decodedSpans.map((s) => s.status)).toEqual([...kinds.map((_, i) => statuses[i % 3]), 'unset', 'unset']);
    expect(decodedSpans[0].service_name).toBe('svc');
    expect(decodedSpans[0].scope).toEqual({ name: 's', attributes: { 'scope.attr': true } });
  });

  it('throws OtlpDecodeError for garbage', () => {
    for (const garbage of [
      Buffer.from('hello world'),
      Buffer.from(jsonBody),
      Uint8Array.of(0xff, 0xff, 0xff),
      Uint8Array.of(0x00),
      Uint8Array.of(0x0a, 0x05, 0x01),
    ]) {
      expectDecodeError(() => decodeTraceRequestProtobuf(garbage), 'protobuf', /^the body is not a valid OTLP ExportTraceServiceRequest protobuf message: /);
    }
  });

  it('either decodes or throws OtlpDecodeError for corrupted bodies, never anything else', () => {
    let seed = 42;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    let failed = 0;
    for (let round = 0; round < 3000; round++) {
      const body = Buffer.from(protobufBody);
      for (let flips = 1 + random(4); flips > 0; flips--) body[random(body.length)] = random(256);
      try {
        decodeTraceRequestProtobuf(body);
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
        failed++;
      }
    }
    expect(failed).toBeGreaterThan(0);
  });

  it('throws OtlpDecodeError for a body cut anywhere', () => {
    for (let length = 1; length < protobufBody.length; length++) {
      expectDecodeError(() => decodeTraceRequestProtobuf(protobufBody.subarray(0, length)), 'protobuf');
    }
  });

  it('throws OtlpDecodeError for values nested more than 100 levels deep', () => {
    // Built by hand: fromObject refuses such nesting itself.
    const field = (n: number, bytes: Uint8Array): Uint8Array =>
      protobuf.Writer.create()
        .uint32((n << 3) | 2)
        .bytes(bytes)
        .finish();
    const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);
    const nested = (levels: number): Uint8Array => {
      let value = field(1, Buffer.from('deep')); // AnyValue.string_value
      for (let i = 0; i < levels; i++) value = field(5, field(1, value)); // AnyValue.array_value.values[0]
      const keyValue = concat(field(1, Buffer.from('deep')), field(2, value));
      return field(1, field(2, field(2, field(9, keyValue)))); // resource_spans.scope_spans.spans.attributes
    };
    expect(allSpans(decodeTraceRequestProtobuf(nested(100)))[0].attributes).toEqual({ deep: JSON.parse('['.repeat(100) + '"deep"' + ']'.repeat(100)) });
    expectDecodeError(() => decodeTraceRequestProtobuf(nested(101)), 'protobuf', /attribute values nested deeper than 100 levels at byte \d+$/);
  });
});

describe('decodeTraceRequestJson', () => {
  it('gives the same span inputs as the protobuf encoding of the same spans', () => {
    const fromJson = decodeTraceRequestJson(jsonBody);
    expect(fromJson).toStrictEqual(decodeTraceRequestProtobuf(protobufBody));
    expect(countSpans(fromJson)).toBe(spans.length);
  });

  it('skips a byte order mark', () => {
    expect(decodeTraceRequestJson(`\ufeff${jsonBody}`)).toStrictEqual(decodeTraceRequestJson(jsonBody));
  });

  it('reads upper-case hex ids as lower case', () => {
    const upper = jsonBody.replaceAll(REMOTE_TRACE_ID, REMOTE_TRACE_ID.toUpperCase()).replaceAll(LINKED_SPAN_ID, LINKED_SPAN_ID.toUpperCase());
    expect(upper).not.toBe(jsonBody);
    expect(decodeTraceRequestJson(upper)).toStrictEqual(decodeTraceRequestJson(jsonBody));
  });

  it('accepts the snake_case field names', () => {
    const snake = jsonBody.replace(/"([a-z]+(?:[A-Z][a-z]+)+)":/g, (_, name: string) => `"${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}":`);
    expect(snake).toContain('"resource_spans":');
    expect(snake).toContain('"start_time_unix_nano":');
    expect(decodeTraceRequestJson(snake)).toStrictEqual(decodeTraceRequestJson(jsonBody));
  });

  it('reads 64-bit integers exactly as strings or as bare numbers, and enums by number or name', () => {
    const body = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
      "scopeSpans":[{"scope":{"name":"s","version":""},"spans":[
        {"traceId":"${REMOTE_TRACE_ID}","spanId":"${REMOTE_SPAN_ID}","parentSpanId":"","name":"a","kind":2,
         "startTimeUnixNano":1700000000123456789,"endTimeUnixNano":"1700000000987654321",
         "status":{"code":"STATUS_CODE_ERROR","message":"bad"},
         "attributes":[{"key":"beyond","value":{"intValue":9007199254740993}},{"key":"beyond_s","value":{"intValue":"-9007199254740993"}},
           {"key":"small","value":{"intValue":"42"}},{"key":"d","value":{"doubleValue":"1.5"}},{"key":"nan","value":{"doubleValue":"NaN"}},
           {"key":"b","value":{"bytesValue":"AAEC-g"}},{"key":"m","value":{"kvlistValue":{"values":[{"key":"x","value":{"arrayValue":{"values":[{"boolValue":true},{}]}}}]}}},
           {"key":"n","value":null}],
         "events":[{"timeUnixNano":1700000000200000000,"name":"e"}],
         "links":[{"traceId":"${LINKED_TRACE_ID.toUpperCase()}","spanId":"${LINKED_SPAN_ID}","traceState":""}]},
        {"traceId":"${REMOTE_TRACE_ID}","spanId":"${REMOTE_SPAN_ID}","kind":"SPAN_KIND_CONSUMER","startTimeUnixNano":"1","endTimeUnixNano":2,"status":{}}
      ]}]}]}`;
    const [a, b] = allSpans(decodeTraceRequestJson(body));
    expect(a).toStrictEqual({
      trace_id: REMOTE_TRACE_ID,
      span_id: REMOTE_SPAN_ID,
      parent_span_id: '',
      name: 'a',
      service_name: 'svc',
      start_time: 1_700_000_000_123_456_789n,
      end_time: 1_700_000_000_987_654_321n,
      status: 'error',
      status_message: 'bad',
      kind: 'server',
      attributes: { beyond: '9007199254740993', beyond_s: '-9007199254740993', small: 42, d: 1.5, nan: 'NaN', b: 'AAEC+g==', m: { x: [true, null] }, n: null },
      resource_attributes: { 'service.name': 'svc' },
      scope: { name: 's' },
      events: [{ name: 'e', time: 1_700_000_000_200_000_000n, attributes: {} }],
      links: [{ trace_id: LINKED_TRACE_ID, span_id: LINKED_SPAN_ID, attributes: {} }],
    });
    expect(b).toMatchObject({ kind: 'consumer', status: 'unset', start_time: 1n, end_time: 2n, name: '', events: [], links: [] });
  });

  it('reads a number beyond 2^53 exactly wherever it is, and leaves big doubles alone', () => {
    const span = (fields: string) => `{"traceId":"${REMOTE_TRACE_ID}","spanId":"${REMOTE_SPAN_ID}","startTimeUnixNano":"5","endTimeUnixNano":"6"${fields}}`;
    const body = `{"resourceSpans":[{"scopeSpans":[{"spans":[${span(',"attributes":[{"key":"d","value":{"doubleValue":12345678901234567890}}]')},${span('')},
      ${span(',"events":[{"name":"e","timeUnixNano":1700000000000000001,"attributes":[{"key":"i","value":{"intValue":-9223372036854775807}}]}]')}]}]}]}`;
    const decoded = allSpans(decodeTraceRequestJson(body));
    // eslint-disable-next-line no-loss-of-precision -- the same double JSON.parse makes of the text
    expect(decoded[0].attributes).toEqual({ d: 12345678901234567890 });
    expect(decoded[2].events).toEqual([{ name: 'e', time: 1_700_000_000_000_000_001n, attributes: { i: '-9223372036854775807' } }]);
    expect(decoded[1].start_time).toBe(5n);
    const tooBig = body.replace('1700000000000000001', '18446744073709551616');
    expectDecodeError(() => decodeTraceRequestJson(tooBig), 'json', /spans\[2\]\.events\[0\]\.timeUnixNano: expected an unsigned 64-bit integer/);
  });

  it('gives the same result as protobuf for hand-built values', () => {
    const value = {
      kvlistValue: {
        values: [
          { key: 'big', value: { intValue: '-9223372036854775808' } },
          { key: 'd', value: { doubleValue: 0.1 } },
        ],
      },
    };
    const pb = handBuilt([{ scopeSpans: [{ spans: [{ ...ids, name: 'x', startTimeUnixNano: '1700000000000000001', attributes: [{ key: 'v', value }] }] }] }]);
    const json = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { traceId: REMOTE_TRACE_ID, spanId: REMOTE_SPAN_ID, name: 'x', startTimeUnixNano: '1700000000000000001', attributes: [{ key: 'v', value }] },
              ],
            },
          ],
        },
      ],
    });
    expect(decodeTraceRequestJson(json)).toStrictEqual(decodeTraceRequestProtobuf(pb));
  });

  it('reads {} and an empty resourceSpans as an empty request', () => {
    expect(decodeTraceRequestJson('{}')).toEqual({ resourceSpans: [] });
    expect(decodeTraceRequestJson('{"resourceSpans":[]}')).toEqual({ resourceSpans: [] });
  });

  it('throws OtlpDecodeError for invalid JSON', () => {
    for (const text of ['', '{', 'not json', '{"resourceSpans":[}', '{"a":1234567890123456789,}']) {
      expectDecodeError(() => decodeTraceRequestJson(text), 'json', /^the body is not valid JSON: /);
    }
  });

  it('throws OtlpDecodeError naming the field for wrong shapes', () => {
    const span = (fields: Record<string, unknown>) =>
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: REMOTE_TRACE_ID, spanId: REMOTE_SPAN_ID, ...fields }] }] }] });
    const at = 'resourceSpans[0].scopeSpans[0].spans[0]';
    const cases: [string, RegExp][] = [
      ['[]', /: expected an object, got an array$/],
      ['"x"', /: expected an object, got the string "x"$/],
      ['{"resourceSpans":{}}', /: resourceSpans: expected an array, got an object$/],
      ['{"resourceSpans":[1]}', /: resourceSpans\[0\]: expected an object, got the number 1$/],
      ['{"resourceSpans":[{"scopeSpans":[{"spans":"x"}]}]}', /: resourceSpans\[0\]\.scopeSpans\[0\]\.spans: expected an array/],
      [
        '{"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":"x"}]}}]}',
        /: resourceSpans\[0\]\.resource\.attributes\[0\]\.value: expected an object/,
      ],
      [span({ traceId: 'S0ItbQ==' }), new RegExp(`${escape(at)}\\.traceId: expected a hex string`)],
      [span({ spanId: 12 }), new RegExp(`${escape(at)}\\.spanId: expected a hex string, got the number 12`)],
      [span({ name: 5 }), new RegExp(`${escape(at)}\\.name: expected a string`)],
      [span({ startTimeUnixNano: '1.5' }), new RegExp(`${escape(at)}\\.startTimeUnixNano: expected an unsigned 64-bit integer`)],
      [span({ endTimeUnixNano: -1 }), new RegExp(`${escape(at)}\\.endTimeUnixNano: expected an unsigned 64-bit integer`)],
      [span({ startTimeUnixNano: '18446744073709551616' }), /startTimeUnixNano: expected an unsigned 64-bit integer/],
      [span({ kind: 'SERVER' }), new RegExp(`${escape(at)}\\.kind: expected one of SPAN_KIND_UNSPECIFIED`)],
      [span({ status: { code: 1.5 } }), new RegExp(`${escape(at)}\\.status\\.code: expected one of STATUS_CODE_UNSET`)],
      [span({ status: [] }), new RegExp(`${escape(at)}\\.status: expected an object, got an array`)],
      [
        span({ attributes: [{ key: 'a', value: { intValue: '1e3' } }] }),
        new RegExp(`${escape(at)}\\.attributes\\[0\\]\\.value\\.intValue: expected a signed 64-bit integer`),
      ],
      [span({ attributes: [{ key: 'a', value: { intValue: '9223372036854775808' } }] }), /attributes\[0\]\.value\.intValue: expected a signed 64-bit integer/],
      [span({ attributes: [{ key: 'a', value: { boolValue: 'true' } }] }), /attributes\[0\]\.value\.boolValue: expected a boolean/],
      [span({ attributes: [{ key: 1, value: {} }] }), /attributes\[0\]\.key: expected a string/],
      [
        span({ attributes: [{ key: 'a', value: { arrayValue: { values: [{ stringValue: 1 }] } } }] }),
        /attributes\[0\]\.value\.arrayValue\.values\[0\]\.stringValue: expected a string/,
      ],
      [
        span({ attributes: [{ key: 'a', value: { kvlistValue: { values: [{ key: 'b', value: { doubleValue: 'x' } }] } } }] }),
        /attributes\[0\]\.value\.kvlistValue\.values\[0\]\.value\.doubleValue: expected a number/,
      ],
      [span({ attributes: [{ key: 'a', value: { bytesValue: 'not base64!' } }] }), /bytesValue: expected a base64 string/],
      [
        span({ events: [{ name: 'e', timeUnixNano: 'soon' }] }),
        new RegExp(`${escape(at)}\\.events\\[0\\]\\.timeUnixNano: expected an unsigned 64-bit integer`),
      ],
      [span({ links: [{ traceId: 'zz', spanId: REMOTE_SPAN_ID }] }), new RegExp(`${escape(at)}\\.links\\[0\\]\\.traceId: expected a hex string`)],
      [
        JSON.stringify({ resourceSpans: [{ scopeSpans: [{ scope: { name: ['x'] } }] }] }),
        /resourceSpans\[0\]\.scopeSpans\[0\]\.scope\.name: expected a string/,
      ],
    ];
    for (const [text, message] of cases) {
      const error = expectDecodeError(() => decodeTraceRequestJson(text), 'json', /^the body is not a valid OTLP\/JSON ExportTraceServiceRequest: /);
      expect(error.message, text).toMatch(message);
    }
  });

  it('refuses values nested more than 100 levels deep, like the protobuf decoder', () => {
    const nested = (levels: number): string => {
      let value = '{"stringValue":"deep"}';
      for (let i = 0; i < levels; i++) value = i % 2 ? `{"arrayValue":{"values":[${value}]}}` : `{"kvlistValue":{"values":[{"key":"k","value":${value}}]}}`;
      return `{"resourceSpans":[{"resource":{"attributes":[{"key":"deep","value":${value}}]}}]}`;
    };
    expect(decodeTraceRequestJson(nested(100)).resourceSpans[0].resource.deep).toBeTypeOf('object');
    expectDecodeError(() => decodeTraceRequestJson(nested(101)), 'json', /attribute values nested deeper than 100 levels$/);
    expectDecodeError(() => decodeTraceRequestJson(nested(5000)), 'json', /attribute values nested deeper than 100 levels$/);
  });
});

// Issue #10, item 5: OTLP ids are 16 (trace) and 8 (span) bytes, never all zeros.
describe('OTLP ids', () => {
  const ZERO_TRACE = '0'.repeat(32);
  const ZERO_SPAN = '0'.repeat(16);
  /** [traceId, spanId, parentSpanId] as hex, and what otlpIdErrors says of the decoded span. */
  const cases: Array<[string, string, string, Array<{ path: string; message: string }>]> = [
    [REMOTE_TRACE_ID, REMOTE_SPAN_ID, '', []],
    [REMOTE_TRACE_ID, REMOTE_SPAN_ID, LINKED_SPAN_ID, []],
    [REMOTE_TRACE_ID, REMOTE_SPAN_ID, ZERO_SPAN, []], // an all-zero parent: a root span
    [ZERO_TRACE, REMOTE_SPAN_ID, '', [{ path: 'trace_id', message: 'must not be all zeros (an invalid trace id in OTLP)' }]],
    [REMOTE_TRACE_ID, ZERO_SPAN, '', [{ path: 'span_id', message: 'must not be all zeros (an invalid span id in OTLP)' }]],
    [
      REMOTE_TRACE_ID.slice(0, 16),
      REMOTE_SPAN_ID.slice(0, 8),
      '',
      [
        { path: 'trace_id', message: 'must be 16 bytes, got 8' },
        { path: 'span_id', message: 'must be 8 bytes, got 4' },
      ],
    ],
    [
      '',
      '',
      '',
      [
        { path: 'trace_id', message: 'is required (a trace id is 16 bytes)' },
        { path: 'span_id', message: 'is required (a span id is 8 bytes)' },
      ],
    ],
    [REMOTE_TRACE_ID, REMOTE_SPAN_ID, 'abcd', [{ path: 'parent_span_id', message: 'must be 8 bytes, got 2' }]],
  ];
  const bytes = (hex: string) => (hex ? Buffer.from(hex, 'hex') : undefined);
  const protobufOf = ([traceId, spanId, parentSpanId]: (typeof cases)[number]) =>
    handBuilt([
      {
        scopeSpans: [
          {
            spans: [{ traceId: bytes(traceId), spanId: bytes(spanId), parentSpanId: bytes(parentSpanId), name: 'x', startTimeUnixNano: '1700000000000000001' }],
          },
        ],
      },
    ]);
  const jsonOf = ([traceId, spanId, parentSpanId]: (typeof cases)[number]) =>
    JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId, parentSpanId, name: 'x', startTimeUnixNano: '1700000000000000001' }] }] }] });

  it.each(cases)('trace %j span %j parent %j: protobuf and JSON decode alike, and the check says %j', (...c) => {
    const fromProtobuf = allSpans(decodeTraceRequestProtobuf(protobufOf(c)));
    const fromJson = allSpans(decodeTraceRequestJson(jsonOf(c)));
    expect(fromJson).toStrictEqual(fromProtobuf);
    expect(otlpIdErrors(fromProtobuf[0])).toEqual(c[3]);
    expect(fromProtobuf[0].parent_span_id).toBe(c[2] === ZERO_SPAN ? '' : c[2]);
  });
});

describe('the response encoders', () => {
  it('encode an empty ExportTraceServiceResponse for full success', () => {
    expect(encodeTraceResponseProtobuf()).toHaveLength(0);
    expect(ProtobufTraceSerializer.deserializeResponse(encodeTraceResponseProtobuf())).toEqual({});
    expect(JSON.parse(encodeTraceResponseJson())).toEqual({});
    expect(JsonTraceSerializer.deserializeResponse(new TextEncoder().encode(encodeTraceResponseJson()))).toEqual({});
  });

  it('encode a partial success that the SDK and our schema decode back', () => {
    const partial = { rejected: 3, message: 'spans[1]: name is required' };
    const bytes = encodeTraceResponseProtobuf(partial);
    expect(ProtobufTraceSerializer.deserializeResponse(bytes)).toEqual({ partialSuccess: { rejectedSpans: 3, errorMessage: partial.message } });
    expect(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes), { longs: Number })).toEqual({
      partialSuccess: { rejectedSpans: 3, errorMessage: partial.message },
    });
    const json = encodeTraceResponseJson(partial);
    expect(JSON.parse(json)).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: partial.message } });
    expect(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.fromObject(JSON.parse(json)), { longs: Number })).toEqual({
      partialSuccess: { rejectedSpans: 3, errorMessage: partial.message },
    });
  });

  it('encode google.rpc.Status', () => {
    const bytes = encodeStatusProtobuf(3, 'bad');
    expect(Buffer.from(bytes).toString('hex')).toBe('0803120362616' + '4');
    expect(RpcStatus.toObject(RpcStatus.decode(bytes))).toEqual({ code: 3, message: 'bad' });
    expect(JSON.parse(encodeStatusJson(3, 'bad'))).toEqual({ code: 3, message: 'bad' });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
