// OTLP/HTTP traces in the JSON encoding (Content-Type: application/json), as the OTLP spec
// defines it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding): the protobuf
// JSON mapping with lowerCamelCase keys (the original snake_case names are accepted too),
// trace and span ids as hex strings (not base64), 64-bit integers as decimal strings or numbers,
// enums as integers (their names are accepted too), bytes values as base64. Unknown fields are
// ignored, as the spec requires; null reads as the field's default.
import { parse as parseLossless } from 'lossless-json';
import type { AttributeValue, Attributes, InstrumentationScope, SpanInput } from '../../records/span.js';
import { OtlpDecodeError } from './errors.js';
import type { PartialSuccess } from './protobuf.js';
import {
  SPAN_KIND_NAMES,
  STATUS_CODE_NAMES,
  doubleAttribute,
  int64Attribute,
  linkRecord,
  resourceContext,
  scopeRecord,
  setAttribute,
  spanRecord,
  type DecodedResourceSpans,
  type DecodedTraceRequest,
  type ResourceContext,
  type SpanEventInput,
  type SpanLinkInput,
} from './to-span-inputs.js';

/**
 * Decodes an ExportTraceServiceRequest in OTLP/JSON.
 * @throws OtlpDecodeError when the text is not JSON, or not of the request's shape (the message
 *   names the offending field, e.g. resourceSpans[0].scopeSpans[0].spans[3].traceId).
 */
export function decodeTraceRequestJson(text: string): DecodedTraceRequest {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a byte order mark, which JSON.parse refuses
  try {
    return request(parse(text, false));
  } catch (error) {
    if (error !== ROUNDED) throw located(error);
  }
  // A 64-bit integer was given as a number beyond 2^53, which JSON.parse rounded: read it again,
  // exactly. (Nanosecond times as numbers always are; most senders write them as strings.)
  exact = true;
  try {
    return request(parse(text, true));
  } catch (error) {
    throw located(error);
  } finally {
    exact = false;
  }
}

/**
 * An ExportTraceServiceResponse: {} when every span was accepted, else
 * {"partialSuccess": {"rejectedSpans": "<int64 as a string>", "errorMessage": "..."}}.
 */
export function encodeTraceResponseJson(partial?: PartialSuccess): string {
  if (!partial) return '{}';
  return JSON.stringify({ partialSuccess: { rejectedSpans: String(partial.rejected), errorMessage: partial.message } });
}

/** A google.rpc.Status (the body of an OTLP/HTTP 4xx/5xx response), without details. */
export function encodeStatusJson(code: number, message: string): string {
  return JSON.stringify({ code, message });
}

// --- parsing -----------------------------------------------------------------------------------

/**
 * Bodies are parsed with the fast JSON.parse. When the walk then meets a 64-bit integer field
 * holding an integer number beyond 2^53 (which JSON.parse may have rounded), it throws ROUNDED and
 * the body is parsed again with lossless-json, whose integers beyond 2^53 are bigints, and walked
 * with `exact` set. (Testing the text for long number literals first costs a regular expression
 * scan of every body, about an eighth of JSON.parse's time; this costs nothing on bodies with
 * strings for 64-bit integers, as the OTLP exporters of the SDKs and the Collector write them.)
 */
const ROUNDED = Symbol('a 64-bit integer beyond 2^53 was read as a number');
let exact = false;

function parse(text: string, lossless: boolean): unknown {
  try {
    return lossless ? parseLossless(text, null, { parseNumber, onDuplicateKey: lastWins }) : JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`the body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, 'json');
  }
}

/** A number beyond 2^53 at a 64-bit integer field: exact when re-parsed, else start over. */
function unsafeInteger(value: number): bigint {
  if (!exact) throw ROUNDED;
  return BigInt(value); // an exponent form like 1e19: exact as far as the literal says
}

function located(error: unknown): unknown {
  if (!(error instanceof ShapeError)) return error;
  const where = error.path ? `${error.path}: ` : '';
  return new OtlpDecodeError(`the body is not a valid OTLP/JSON ExportTraceServiceRequest: ${where}${error.message}`, 'json');
}

const INTEGER = /^-?\d+$/;

function parseNumber(literal: string): number | bigint {
  const n = Number(literal);
  return Number.isSafeInteger(n) || !INTEGER.test(literal) ? n : BigInt(literal);
}

/** Duplicate keys: the last one wins, as with JSON.parse. */
function lastWins(info: { newValue: unknown }): unknown {
  return info.newValue;
}

// --- shape errors, located by the path of the offending field ----------------------------------

class ShapeError extends Error {
  path = '';
}

function fail(message: string): never {
  throw new ShapeError(message);
}

/** Prefixes a ShapeError's path with the field it happened in. */
function within(error: unknown, segment: string): unknown {
  if (error instanceof ShapeError) error.path = !error.path ? segment : error.path.startsWith('[') ? segment + error.path : `${segment}.${error.path}`;
  return error;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 40 ? `the string ${JSON.stringify(value.slice(0, 40))}...` : `the string ${JSON.stringify(value)}`;
  if (typeof value === 'bigint') return `the number ${value}`;
  return `${typeof value === 'number' ? 'the number' : 'the boolean'} ${String(value)}`;
}

type Json = Record<string, unknown>;

function object(value: unknown, field: string): Json {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Json;
  throw within(new ShapeError(`expected an object, got ${describe(value)}`), field);
}

/** The object at a (camelCase or snake_case) key, or undefined when absent or null. */
function optionalObject(o: Json, camel: string, snake: string): Json | undefined {
  const value = o[camel] ?? o[snake];
  return value === undefined || value === null ? undefined : object(value, camel);
}

const NONE: readonly unknown[] = [];

function list(o: Json, camel: string, snake: string): readonly unknown[] {
  const value = o[camel] ?? o[snake];
  if (value === undefined || value === null) return NONE;
  if (Array.isArray(value)) return value;
  throw within(new ShapeError(`expected an array, got ${describe(value)}`), camel);
}

function string(o: Json, camel: string, snake: string): string {
  const value = o[camel] ?? o[snake];
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  throw within(new ShapeError(`expected a string, got ${describe(value)}`), camel);
}

const HEX = /^[0-9a-fA-F]*$/;

/** Trace and span ids: hex in OTLP/JSON (not the protobuf JSON mapping's base64); lower-cased. */
function hexId(o: Json, camel: string, snake: string): string {
  const value = o[camel] ?? o[snake];
  if (typeof value === 'string' && HEX.test(value)) return value.toLowerCase();
  if (value === undefined || value === null) return '';
  throw within(new ShapeError(`expected a hex string, got ${describe(value)}`), camel);
}

const MAX_UINT64 = 0xffffffffffffffffn;
const UINT = /^\d{1,20}$/;

/** A fixed64 time in nanoseconds: a decimal string or an integer number; absent is 0. */
function uint64(o: Json, camel: string, snake: string): bigint {
  const value = o[camel] ?? o[snake];
  if (typeof value === 'string') {
    if (UINT.test(value)) {
      const n = BigInt(value);
      if (n <= MAX_UINT64) return n;
    }
  } else if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (Number.isInteger(value) && value > 0 && value < 18446744073709551616) return unsafeInteger(value);
  } else if (typeof value === 'bigint') {
    if (value >= 0n && value <= MAX_UINT64) return value;
  } else if (value === undefined || value === null) return 0n;
  throw within(new ShapeError(`expected an unsigned 64-bit integer (a decimal string or a number), got ${describe(value)}`), camel);
}

/** An enum: its number (values outside the enum are kept, as protobuf does) or its name. */
function enumeration(o: Json, camel: string, snake: string, names: Readonly<Record<string, number>>): number {
  const value = o[camel] ?? o[snake];
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && Object.hasOwn(names, value)) return names[value];
  if (value === undefined || value === null) return 0;
  throw within(new ShapeError(`expected one of ${Object.keys(names).join(', ')} or its number, got ${describe(value)}`), camel);
}

// --- the walk ----------------------------------------------------------------------------------

function request(parsed: unknown): DecodedTraceRequest {
  const top = object(parsed, '');
  const resourceSpans: DecodedResourceSpans[] = [];
  const items = list(top, 'resourceSpans', 'resource_spans');
  for (let i = 0; i < items.length; i++) {
    try {
      resourceSpans.push(resourceSpansOf(object(items[i], '')));
    } catch (error) {
      throw within(error, `resourceSpans[${i}]`);
    }
  }
  return { resourceSpans };
}

function resourceSpansOf(rs: Json): DecodedResourceSpans {
  const r = optionalObject(rs, 'resource', 'resource');
  let resourceAttributes: Attributes = {};
  if (r) {
    try {
      resourceAttributes = attributes(r);
    } catch (error) {
      throw within(error, 'resource');
    }
  }
  const resource = resourceContext(resourceAttributes);
  const spans: SpanInput[] = [];
  const scopeSpans = list(rs, 'scopeSpans', 'scope_spans');
  for (let i = 0; i < scopeSpans.length; i++) {
    try {
      scopeSpansOf(object(scopeSpans[i], ''), resource, spans);
    } catch (error) {
      throw within(error, `scopeSpans[${i}]`);
    }
  }
  return { resource: resource.attributes, spans };
}

function scopeSpansOf(ss: Json, resource: ResourceContext, out: SpanInput[]): void {
  let scope: InstrumentationScope | undefined;
  const s = optionalObject(ss, 'scope', 'scope');
  if (s) {
    try {
      const attrs = attributes(s);
      scope = scopeRecord(string(s, 'name', 'name'), string(s, 'version', 'version'), attrs);
    } catch (error) {
      throw within(error, 'scope');
    }
  }
  const spans = list(ss, 'spans', 'spans');
  for (let i = 0; i < spans.length; i++) {
    try {
      out.push(spanOf(object(spans[i], ''), resource, scope));
    } catch (error) {
      throw within(error, `spans[${i}]`);
    }
  }
}

function spanOf(span: Json, resource: ResourceContext, scope: InstrumentationScope | undefined): SpanInput {
  const eventItems = list(span, 'events', 'events');
  const events: SpanEventInput[] = [];
  for (let i = 0; i < eventItems.length; i++) {
    try {
      const event = object(eventItems[i], '');
      events.push({ name: string(event, 'name', 'name'), time: uint64(event, 'timeUnixNano', 'time_unix_nano'), attributes: attributes(event) });
    } catch (error) {
      throw within(error, `events[${i}]`);
    }
  }
  const linkItems = list(span, 'links', 'links');
  const links: SpanLinkInput[] = [];
  for (let i = 0; i < linkItems.length; i++) {
    try {
      const link = object(linkItems[i], '');
      links.push(linkRecord(hexId(link, 'traceId', 'trace_id'), hexId(link, 'spanId', 'span_id'), string(link, 'traceState', 'trace_state'), attributes(link)));
    } catch (error) {
      throw within(error, `links[${i}]`);
    }
  }
  const status = optionalObject(span, 'status', 'status');
  let statusCode = 0;
  let statusMessage = '';
  if (status) {
    try {
      statusCode = enumeration(status, 'code', 'code', STATUS_CODE_NAMES);
      statusMessage = string(status, 'message', 'message');
    } catch (error) {
      throw within(error, 'status');
    }
  }
  return spanRecord(
    hexId(span, 'traceId', 'trace_id'),
    hexId(span, 'spanId', 'span_id'),
    hexId(span, 'parentSpanId', 'parent_span_id'),
    string(span, 'traceState', 'trace_state'),
    string(span, 'name', 'name'),
    enumeration(span, 'kind', 'kind', SPAN_KIND_NAMES),
    uint64(span, 'startTimeUnixNano', 'start_time_unix_nano'),
    uint64(span, 'endTimeUnixNano', 'end_time_unix_nano'),
    attributes(span),
    events,
    links,
    statusCode,
    statusMessage,
    resource,
    scope,
  );
}

/** The `attributes` list (of KeyValue) of a message, as a map. */
function attributes(o: Json): Attributes {
  const items = list(o, 'attributes', 'attributes');
  const out: Attributes = {};
  for (let i = 0; i < items.length; i++) {
    try {
      keyValueInto(out, items[i], 0);
    } catch (error) {
      throw within(error, `attributes[${i}]`);
    }
  }
  return out;
}

function keyValueInto(out: Attributes, item: unknown, depth: number): void {
  const kv = object(item, '');
  const key = kv.key ?? '';
  if (typeof key !== 'string') throw within(new ShapeError(`expected a string, got ${describe(key)}`), 'key');
  const value = kv.value;
  if (value === undefined || value === null) return setAttribute(out, key, null);
  try {
    setAttribute(out, key, anyValue(object(value, ''), depth));
  } catch (error) {
    throw within(error, 'value');
  }
}

/** Arrays and kvlists nested deeper than this are refused (as by the protobuf decoder). */
const MAX_DEPTH = 100;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function anyValue(v: Json, depth: number): AttributeValue {
  let value = v.stringValue ?? v.string_value;
  if (value !== undefined && value !== null) {
    if (typeof value === 'string') return value;
    throw within(new ShapeError(`expected a string, got ${describe(value)}`), 'stringValue');
  }
  value = v.intValue ?? v.int_value;
  if (value !== undefined && value !== null) return int64(value);
  value = v.boolValue ?? v.bool_value;
  if (value !== undefined && value !== null) {
    if (typeof value === 'boolean') return value;
    throw within(new ShapeError(`expected a boolean, got ${describe(value)}`), 'boolValue');
  }
  value = v.doubleValue ?? v.double_value;
  if (value !== undefined && value !== null) return double(value);
  value = v.arrayValue ?? v.array_value;
  if (value !== undefined && value !== null) {
    if (depth >= MAX_DEPTH) fail(`attribute values nested deeper than ${MAX_DEPTH} levels`);
    const items = list(object(value, 'arrayValue'), 'values', 'values');
    const out: AttributeValue[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      try {
        out[i] = item === null ? null : anyValue(object(item, ''), depth + 1);
      } catch (error) {
        throw within(error, `arrayValue.values[${i}]`);
      }
    }
    return out;
  }
  value = v.kvlistValue ?? v.kvlist_value;
  if (value !== undefined && value !== null) {
    if (depth >= MAX_DEPTH) fail(`attribute values nested deeper than ${MAX_DEPTH} levels`);
    const items = list(object(value, 'kvlistValue'), 'values', 'values');
    const out: Attributes = {};
    for (let i = 0; i < items.length; i++) {
      try {
        keyValueInto(out, items[i], depth + 1);
      } catch (error) {
        throw within(error, `kvlistValue.values[${i}]`);
      }
    }
    return out;
  }
  value = v.bytesValue ?? v.bytes_value;
  if (value !== undefined && value !== null) {
    // Normalized to standard base64 with padding, as the protobuf decoder produces it.
    if (typeof value === 'string' && BASE64.test(value)) return Buffer.from(value, 'base64').toString('base64');
    throw within(new ShapeError(`expected a base64 string, got ${describe(value)}`), 'bytesValue');
  }
  return null;
}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

function int64(value: unknown): number | string {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value;
    if (Number.isInteger(value) && value >= -9223372036854775808 && value < 9223372036854775808) return int64Attribute(unsafeInteger(value));
  } else if (typeof value === 'string') {
    if (INTEGER.test(value) && value.length <= 20) {
      const n = BigInt(value);
      if (n >= MIN_INT64 && n <= MAX_INT64) return int64Attribute(n);
    }
  } else if (typeof value === 'bigint') {
    if (value >= MIN_INT64 && value <= MAX_INT64) return int64Attribute(value);
  }
  throw within(new ShapeError(`expected a signed 64-bit integer (a decimal string or a number), got ${describe(value)}`), 'intValue');
}

function double(value: unknown): number | string {
  if (typeof value === 'number') return doubleAttribute(value);
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    // The protobuf JSON mapping writes NaN and the infinities as strings, and accepts numbers in strings.
    if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return value;
    const n = value.trim() === '' ? NaN : Number(value);
    if (!Number.isNaN(n)) return doubleAttribute(n);
  }
  throw within(new ShapeError(`expected a number, got ${describe(value)}`), 'doubleValue');
}
