// Fuzz: the OTLP decoders (src/otlp/decode) take any body and either decode it or throw
// OtlpDecodeError (a 400); what they decode goes through the id check and the span validation
// without an unexpected throw.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OtlpDecodeError, decodeTraceRequestJson, decodeTraceRequestProtobuf, otlpIdErrors, type DecodedTraceRequest } from '../../src/otlp/decode/index.js';
import { ExportTraceServiceRequest } from '../../src/otlp/decode/schema.js';
import { validationConfigSchema } from '../../processors/validation/config.js';
import { validateSpan } from '../../src/records/span-validation/validate-span.js';
import { FUZZ_TIMEOUT_MS, oddValue } from './fuzz-config.js';

const limits = validationConfigSchema.parse({});

/** Decodes, or throws only OtlpDecodeError; then every span passes the checks without a throw. */
function decodes(decode: () => DecodedTraceRequest): void {
  let request: DecodedTraceRequest;
  try {
    request = decode();
  } catch (error) {
    expect(error).toBeInstanceOf(OtlpDecodeError);
    return;
  }
  for (const resource of request.resourceSpans)
    for (const span of resource.spans) {
      for (const error of otlpIdErrors(span)) expect(typeof error.message).toBe('string');
      validateSpan(span, limits);
    }
}

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const NOW_NS = 1_763_805_600_000_000_000n;
const fixed64 = fc.oneof(
  { arbitrary: fc.bigInt({ min: NOW_NS, max: NOW_NS + 10n ** 12n }).map(String), weight: 3 },
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  fc.constant('0'),
);
const anyValue: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ value: Record<string, unknown> }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: fc.string() }),
    fc.record({ intValue: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) }),
    fc.record({ doubleValue: fc.double().map((d) => (Object.is(d, -0) ? 0 : d)) }), // JSON cannot write -0
    fc.record({ boolValue: fc.boolean() }),
    fc.record({ bytesValue: bytes(0, 8) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('value'), { maxLength: 3 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(fc.record({ key: fc.string(), value: tie('value') }), { maxLength: 3 }) }) }),
  ),
})).value;
const keyValues = fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: anyValue }), { maxLength: 4 });
const span = fc.record(
  {
    traceId: fc.oneof(bytes(16, 16), bytes(0, 20), fc.constant(new Uint8Array(16))),
    spanId: fc.oneof(bytes(8, 8), bytes(0, 10), fc.constant(new Uint8Array(8))),
    parentSpanId: fc.oneof(bytes(8, 8), bytes(0, 10), fc.constant(new Uint8Array(8))),
    name: fc.string(),
    kind: fc.integer({ min: -1, max: 9 }),
    startTimeUnixNano: fixed64,
    endTimeUnixNano: fixed64,
    attributes: keyValues,
    events: fc.array(fc.record({ name: fc.string(), timeUnixNano: fixed64, attributes: keyValues }), { maxLength: 3 }),
    links: fc.array(fc.record({ traceId: bytes(0, 16), spanId: bytes(0, 8), attributes: keyValues }), { maxLength: 2 }),
    status: fc.record({ code: fc.integer({ min: 0, max: 4 }), message: fc.string() }),
  },
  { requiredKeys: [] },
);
const request = fc.record({
  resourceSpans: fc.array(
    fc.record({
      resource: fc.record({ attributes: keyValues }),
      scopeSpans: fc.array(fc.record({ scope: fc.record({ name: fc.string() }), spans: fc.array(span, { maxLength: 4 }) }), { maxLength: 2 }),
    }),
    { maxLength: 2 },
  ),
});
const encode = (message: unknown): Uint8Array =>
  ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(message as Record<string, unknown>)).finish();
const hex = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('hex') : value);

/** The protobuf request as OTLP/JSON: ids in hex, bytes in base64, NaN and the infinities as strings. */
function toJson(message: unknown): unknown {
  return JSON.parse(
    JSON.stringify(message, function (key, value: unknown) {
      const raw = (this as Record<string, unknown>)[key];
      if (['traceId', 'spanId', 'parentSpanId'].includes(key)) return hex(raw);
      if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
      if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
      return value;
    }),
  );
}

describe('fuzz: OTLP protobuf decoder', () => {
  it(
    'any bytes decode or throw OtlpDecodeError',
    () => {
      fc.assert(
        fc.property(bytes(0, 512), (body) => decodes(() => decodeTraceRequestProtobuf(body))),
        { numRuns: 4 * fc.readConfigureGlobal().numRuns! },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'well-formed requests of any content decode, and their spans go through the checks',
    () => {
      fc.assert(fc.property(request, (message) => decodes(() => decodeTraceRequestProtobuf(encode(message)))));
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'a well-formed request with bytes changed, cut or added decodes or throws OtlpDecodeError',
    () => {
      fc.assert(
        fc.property(
          request,
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
          fc.nat(),
          bytes(0, 8),
          (message, changes, cut, tail) => {
            const body = Buffer.from(encode(message));
            for (const [at, byte] of changes) if (body.length) body[at % body.length] = byte;
            const mutated = Buffer.concat([body.subarray(0, body.length ? cut % (body.length + 1) : 0), tail]);
            decodes(() => decodeTraceRequestProtobuf(mutated));
          },
        ),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('fuzz: OTLP/JSON decoder', () => {
  it(
    'any text decodes or throws OtlpDecodeError',
    () => {
      fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json()), (text) => decodes(() => decodeTraceRequestJson(text))));
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'well-formed requests decode alike from JSON and protobuf, and their spans go through the checks',
    () => {
      fc.assert(
        fc.property(request, (message) => {
          const body = JSON.stringify(toJson(message));
          decodes(() => decodeTraceRequestJson(body));
          expect(decodeTraceRequestJson(body)).toStrictEqual(decodeTraceRequestProtobuf(encode(message)));
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'requests with odd values anywhere decode or throw OtlpDecodeError',
    () => {
      const paths = [
        'resourceSpans',
        'resource',
        'scopeSpans',
        'spans',
        'traceId',
        'startTimeUnixNano',
        'attributes',
        'value',
        'intValue',
        'kind',
        'status',
        'events',
        'links',
      ];
      fc.assert(
        fc.property(request, fc.constantFrom(...paths), oddValue, (message, path, odd) => {
          // Bigints go in as bare integer literals, as senders write 64-bit integers.
          const body = JSON.stringify(toJson(message), (key, value: unknown) => {
            const chosen = key === path ? odd : value;
            return typeof chosen === 'bigint' ? `__bigint:${chosen}` : chosen;
          }).replace(/"__bigint:(-?\d+)"/g, '$1');
          decodes(() => decodeTraceRequestJson(body));
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
