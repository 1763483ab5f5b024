// OTLP/HTTP traces in the binary protobuf encoding (Content-Type: application/x-protobuf): the
// ExportTraceServiceRequest body into span inputs, and the response and error bodies.
//
// The request is read straight off the wire into span inputs, by a decoder written for the
// messages of src/otlp/proto/ (field numbers as there), rather than through protobufjs'
// message objects: that is markedly faster on the hot path (protobufjs allocates a message and a
// Long per value, and `delete`s on every oneof member and zero-valued field). protobufjs
// still encodes the responses, and the tests check this decoder against its decoding.
//
// Like protobufjs and protoc: unknown fields are skipped, a known field with an unexpected wire
// type is skipped as unknown, a message field given twice is merged, a scalar given twice keeps
// the last value. Unlike protobufjs (and like the Go collector) strings are not checked for valid
// UTF-8: bad bytes read as U+FFFD instead of failing the whole request.
import type { AttributeValue, Attributes, InstrumentationScope, SpanInput } from '../../records/span.js';
import { OtlpDecodeError } from './errors.js';
import { ExportTraceServiceResponse, RpcStatus } from './schema.js';
import {
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

/** The partial success of an export: how many spans were rejected, and why. */
export interface PartialSuccess {
  rejected: number;
  message: string;
}

/**
 * Decodes an ExportTraceServiceRequest (any Uint8Array; a Buffer is read without copying).
 * @throws OtlpDecodeError when the bytes are not such a message (truncated, bad wire types, ...).
 */
export function decodeTraceRequestProtobuf(body: Uint8Array): DecodedTraceRequest {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  try {
    return request(new Reader(buf));
  } catch (error) {
    if (error instanceof WireError)
      throw new OtlpDecodeError(`the body is not a valid OTLP ExportTraceServiceRequest protobuf message: ${error.message}`, 'protobuf');
    throw error;
  }
}

/**
 * An ExportTraceServiceResponse: empty when every span was accepted (the OTLP spec says to leave
 * partial_success unset then), else with partial_success {rejected_spans, error_message}.
 */
export function encodeTraceResponseProtobuf(partial?: PartialSuccess): Uint8Array {
  const message = partial ? { partialSuccess: { rejectedSpans: partial.rejected, errorMessage: partial.message } } : {};
  return ExportTraceServiceResponse.encode(ExportTraceServiceResponse.fromObject(message)).finish();
}

/** A google.rpc.Status (the body of an OTLP/HTTP 4xx/5xx response), without details. */
export function encodeStatusProtobuf(code: number, message: string): Uint8Array {
  return RpcStatus.encode(RpcStatus.fromObject({ code, message })).finish();
}

// --- the wire ----------------------------------------------------------------------------------

class WireError extends Error {}

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const SGROUP = 3;
const EGROUP = 4;
const I32 = 5;

/** Array and kvlist values nested deeper than this are refused (protobufjs and protoc stop at 100 messages). */
const MAX_VALUE_DEPTH = 100;

class Reader {
  pos = 0;
  /** The end of the message being read. */
  limit: number;
  /** The two halves of the last 64-bit varint read. */
  lo = 0;
  hi = 0;

  constructor(readonly buf: Buffer) {
    this.limit = buf.length;
  }

  fail(what: string): never {
    throw new WireError(`${what} at byte ${this.pos}`);
  }

  /** A varint's low 32 bits, as an unsigned number (tags, lengths, uint32, enums after `| 0`). */
  varint32(): number {
    const buf = this.buf;
    const limit = this.limit;
    let pos = this.pos;
    if (pos >= limit) this.fail('truncated varint');
    let b = buf[pos++];
    let value = b & 0x7f;
    if (b >= 0x80) {
      // Bits beyond 32 (a negative int32 takes 10 bytes) are read and dropped.
      let shift = 7;
      do {
        if (pos >= limit) this.fail('truncated varint');
        if (shift >= 70) this.fail('varint longer than 10 bytes');
        b = buf[pos++];
        if (shift < 32) value |= (b & 0x7f) << shift;
        shift += 7;
      } while (b >= 0x80);
    }
    this.pos = pos;
    return value >>> 0;
  }

  /** A varint's 64 bits into lo and hi (unsigned halves). */
  varint64(): void {
    const buf = this.buf;
    const limit = this.limit;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let b: number;
    let shift = 0;
    do {
      if (pos >= limit) this.fail('truncated varint');
      if (shift >= 70) this.fail('varint longer than 10 bytes');
      b = buf[pos++];
      if (shift < 28) lo |= (b & 0x7f) << shift;
      else if (shift === 28) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (shift - 32);
      shift += 7;
    } while (b >= 0x80);
    this.pos = pos;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** The end of a length-delimited field whose length comes next. */
  lengthEnd(): number {
    const length = this.varint32();
    if (length > this.limit - this.pos) this.fail(`truncated field (${length} bytes announced)`);
    return this.pos + length;
  }

  /** Enters an embedded message that ends at `end`; returns the limit to restore with leave(). */
  enter(end: number): number {
    const outer = this.limit;
    this.limit = end;
    return outer;
  }

  leave(outer: number): void {
    if (this.pos !== this.limit) this.fail('a field crosses the end of its message');
    this.limit = outer;
  }

  string(): string {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    return start === end ? '' : utf8Slice(this.buf, start, end);
  }

  /** An attribute key: a string seen before is handed out again (see KEY_SLOTS). */
  key(): string {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    const length = end - start;
    if (length === 0) return '';
    const buf = this.buf;
    if (length > MAX_KEPT_KEY) return utf8Slice(buf, start, end);
    let hash = length;
    for (let i = start; i < end; i++) {
      const b = buf[i];
      if (b >= 0x80) return utf8Slice(buf, start, end); // ASCII keys only: one byte is one character
      hash = Math.imul(hash ^ b, 0x01000193);
    }
    const slot = hash & (KEY_SLOTS - 1);
    const kept = keptKeys[slot];
    if (kept !== undefined && kept.length === length) {
      let i = 0;
      while (i < length && kept.charCodeAt(i) === buf[start + i]) i++;
      if (i === length) return kept;
    }
    const key = utf8Slice(buf, start, end);
    keptKeys[slot] = key;
    return key;
  }

  /** Bytes as lower-case hex (ids). */
  hex(): string {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    return start === end ? '' : hexSlice(this.buf, start, end);
  }

  base64(): string {
    const end = this.lengthEnd();
    const start = this.pos;
    this.pos = end;
    return this.buf.toString('base64', start, end);
  }

  fixed64(): bigint {
    if (this.limit - this.pos < 8) this.fail('truncated fixed64');
    const value = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return value;
  }

  double(): number {
    if (this.limit - this.pos < 8) this.fail('truncated double');
    const value = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** Skips the value of a field with this tag (an unknown field, or one with an unexpected wire type). */
  skip(tag: number, depth = 0): void {
    switch (tag & 7) {
      case VARINT:
        this.varint64();
        return;
      case I64:
        if (this.limit - this.pos < 8) this.fail('truncated fixed64');
        this.pos += 8;
        return;
      case LEN:
        this.pos = this.lengthEnd();
        return;
      case SGROUP: {
        if (depth >= MAX_VALUE_DEPTH) this.fail('groups nested too deeply');
        for (;;) {
          const inner = this.tag();
          if ((inner & 7) === EGROUP) {
            if (inner >>> 3 !== tag >>> 3) this.fail('mismatched end of group');
            return;
          }
          this.skip(inner, depth + 1);
        }
      }
      case I32:
        if (this.limit - this.pos < 4) this.fail('truncated fixed32');
        this.pos += 4;
        return;
      default:
        return this.fail(`unexpected wire type ${tag & 7}`);
    }
  }

  tag(): number {
    const tag = this.varint32();
    if (tag >>> 3 === 0) this.fail('illegal field number 0');
    return tag;
  }
}

// Buffer's own utf8Slice and hexSlice (what toString('utf8' | 'hex', start, end) calls after
// checking its arguments) are faster on the short strings of spans (bench/README.md); protobufjs
// uses them the same way. Not in @types/node, hence the fallback.
interface SliceBuffer {
  utf8Slice?: (start: number, end: number) => string;
  hexSlice?: (start: number, end: number) => string;
}
const proto = Buffer.prototype as SliceBuffer;
const utf8Slice: (buf: Buffer, start: number, end: number) => string =
  typeof proto.utf8Slice === 'function'
    ? (buf, start, end) => (buf as SliceBuffer).utf8Slice!(start, end)
    : (buf, start, end) => buf.toString('utf8', start, end);
const hexSlice: (buf: Buffer, start: number, end: number) => string =
  typeof proto.hexSlice === 'function' ? (buf, start, end) => (buf as SliceBuffer).hexSlice!(start, end) : (buf, start, end) => buf.toString('hex', start, end);

/**
 * Attribute keys recently read, by a hash of their bytes: the same few keys come in every span,
 * and a key read anew is a string to allocate and, once it names a property, to look up in V8's
 * table of property names. The table is fixed, and a key is compared byte for byte before it is
 * handed out again, so hostile keys cost no more than a slot's overwrite.
 */
const KEY_SLOTS = 1024;
const MAX_KEPT_KEY = 64;
const keptKeys: Array<string | undefined> = new Array<string | undefined>(KEY_SLOTS).fill(undefined);

/** Tags (field number << 3 | wire type) of the fields read. */
const T = {
  lenField1: (1 << 3) | LEN,
  lenField2: (2 << 3) | LEN,
  lenField3: (3 << 3) | LEN,
  lenField4: (4 << 3) | LEN,
  lenField5: (5 << 3) | LEN,
  lenField6: (6 << 3) | LEN,
  lenField7: (7 << 3) | LEN,
  lenField9: (9 << 3) | LEN,
  lenField11: (11 << 3) | LEN,
  lenField13: (13 << 3) | LEN,
  lenField15: (15 << 3) | LEN,
  varintField2: (2 << 3) | VARINT,
  varintField3: (3 << 3) | VARINT,
  varintField6: (6 << 3) | VARINT,
  i64Field1: (1 << 3) | I64,
  i64Field4: (4 << 3) | I64,
  i64Field7: (7 << 3) | I64,
  i64Field8: (8 << 3) | I64,
} as const;

// --- the messages ------------------------------------------------------------------------------

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; } */
function request(r: Reader): DecodedTraceRequest {
  const resourceSpans: DecodedResourceSpans[] = [];
  while (r.pos < r.limit) {
    const tag = r.tag();
    if (tag === T.lenField1) resourceSpans.push(resourceSpansOf(r, r.lengthEnd()));
    else r.skip(tag);
  }
  return { resourceSpans };
}

/** ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; } */
function resourceSpansOf(r: Reader, end: number): DecodedResourceSpans {
  const outer = r.enter(end);
  const resourceAttributes: Attributes = {};
  // The spans need the resource, which may come after them: note where they are, read them after.
  const scopeSpans: number[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === T.lenField2) {
      const scopeEnd = r.lengthEnd();
      scopeSpans.push(r.pos, scopeEnd);
      r.pos = scopeEnd;
    } else if (tag === T.lenField1) {
      // Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
      const resourceOuter = r.enter(r.lengthEnd());
      while (r.pos < r.limit) {
        const inner = r.tag();
        if (inner === T.lenField1) keyValueInto(r, resourceAttributes, 0);
        else r.skip(inner);
      }
      r.leave(resourceOuter);
    } else r.skip(tag);
  }
  r.leave(outer);
  const resource = resourceContext(resourceAttributes);
  const spans: SpanInput[] = [];
  for (let i = 0; i < scopeSpans.length; i += 2) {
    r.pos = scopeSpans[i];
    scopeSpansInto(r, scopeSpans[i + 1], resource, spans);
  }
  r.pos = end;
  return { resource: resourceAttributes, spans };
}

/** ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; } */
function scopeSpansInto(r: Reader, end: number, resource: ResourceContext, out: SpanInput[]): void {
  const outer = r.enter(end);
  const spans: number[] = [];
  let hasScope = false;
  let name = '';
  let version = '';
  const attributes: Attributes = {};
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === T.lenField2) {
      const spanEnd = r.lengthEnd();
      spans.push(r.pos, spanEnd);
      r.pos = spanEnd;
    } else if (tag === T.lenField1) {
      // InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
      hasScope = true;
      const scopeOuter = r.enter(r.lengthEnd());
      while (r.pos < r.limit) {
        const inner = r.tag();
        if (inner === T.lenField1) name = r.string();
        else if (inner === T.lenField2) version = r.string();
        else if (inner === T.lenField3) keyValueInto(r, attributes, 0);
        else r.skip(inner);
      }
      r.leave(scopeOuter);
    } else r.skip(tag);
  }
  r.leave(outer);
  const scope: InstrumentationScope | undefined = hasScope ? scopeRecord(name, version, attributes) : undefined;
  for (let i = 0; i < spans.length; i += 2) {
    r.pos = spans[i];
    out.push(spanOf(r, spans[i + 1], resource, scope));
  }
  r.pos = end;
}

/**
 * Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
 *   string name = 5; SpanKind kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
 *   repeated KeyValue attributes = 9; repeated Event events = 11; repeated Link links = 13;
 *   Status status = 15; (10, 12, 14: dropped counts; 16: flags) }
 */
function spanOf(r: Reader, end: number, resource: ResourceContext, scope: InstrumentationScope | undefined): SpanInput {
  const outer = r.enter(end);
  let traceId = '';
  let spanId = '';
  let parentSpanId = '';
  let traceState = '';
  let name = '';
  let kind = 0;
  let start = 0n;
  let finish = 0n;
  const attributes: Attributes = {};
  const events: SpanEventInput[] = [];
  const links: SpanLinkInput[] = [];
  let statusCode = 0;
  let statusMessage = '';
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case T.lenField9:
        keyValueInto(r, attributes, 0);
        break;
      case T.lenField1:
        traceId = r.hex();
        break;
      case T.lenField2:
        spanId = r.hex();
        break;
      case T.lenField3:
        traceState = r.string();
        break;
      case T.lenField4:
        parentSpanId = r.hex();
        break;
      case T.lenField5:
        name = r.string();
        break;
      case T.varintField6:
        kind = r.varint32() | 0;
        break;
      case T.i64Field7:
        start = r.fixed64();
        break;
      case T.i64Field8:
        finish = r.fixed64();
        break;
      case T.lenField11:
        events.push(eventOf(r, r.lengthEnd()));
        break;
      case T.lenField13:
        links.push(linkOf(r, r.lengthEnd()));
        break;
      case T.lenField15: {
        // Status { string message = 2; StatusCode code = 3; }
        const statusOuter = r.enter(r.lengthEnd());
        while (r.pos < r.limit) {
          const inner = r.tag();
          if (inner === T.varintField3) statusCode = r.varint32() | 0;
          else if (inner === T.lenField2) statusMessage = r.string();
          else r.skip(inner);
        }
        r.leave(statusOuter);
        break;
      }
      default:
        r.skip(tag);
    }
  }
  r.leave(outer);
  return spanRecord(
    traceId,
    spanId,
    parentSpanId,
    traceState,
    name,
    kind,
    start,
    finish,
    attributes,
    events,
    links,
    statusCode,
    statusMessage,
    resource,
    scope,
  );
}

/** Span.Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; } */
function eventOf(r: Reader, end: number): SpanEventInput {
  const outer = r.enter(end);
  let name = '';
  let time = 0n;
  const attributes: Attributes = {};
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === T.lenField3) keyValueInto(r, attributes, 0);
    else if (tag === T.i64Field1) time = r.fixed64();
    else if (tag === T.lenField2) name = r.string();
    else r.skip(tag);
  }
  r.leave(outer);
  return { name, time, attributes };
}

/** Span.Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; (5: dropped count, 6: flags) } */
function linkOf(r: Reader, end: number): SpanLinkInput {
  const outer = r.enter(end);
  let traceId = '';
  let spanId = '';
  let traceState = '';
  const attributes: Attributes = {};
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === T.lenField4) keyValueInto(r, attributes, 0);
    else if (tag === T.lenField1) traceId = r.hex();
    else if (tag === T.lenField2) spanId = r.hex();
    else if (tag === T.lenField3) traceState = r.string();
    else r.skip(tag);
  }
  r.leave(outer);
  return linkRecord(traceId, spanId, traceState, attributes);
}

/** KeyValue { string key = 1; AnyValue value = 2; } (its length comes next), into `out`. */
function keyValueInto(r: Reader, out: Attributes, depth: number): void {
  const outer = r.enter(r.lengthEnd());
  let key = '';
  let value: AttributeValue = null;
  while (r.pos < r.limit) {
    const tag = r.tag();
    if (tag === T.lenField1) key = r.key();
    else if (tag === T.lenField2) value = anyValue(r, depth);
    else r.skip(tag);
  }
  r.leave(outer);
  setAttribute(out, key, value);
}

/**
 * AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3;
 *   double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6;
 *   bytes bytes_value = 7; } } (its length comes next). None set: null.
 */
function anyValue(r: Reader, depth: number): AttributeValue {
  const outer = r.enter(r.lengthEnd());
  let value: AttributeValue = null;
  while (r.pos < r.limit) {
    const tag = r.tag();
    switch (tag) {
      case T.lenField1:
        value = r.string();
        break;
      case T.varintField3:
        r.varint64();
        value = int64(r.lo, r.hi);
        break;
      case T.varintField2:
        r.varint64();
        value = r.lo !== 0 || r.hi !== 0;
        break;
      case T.i64Field4:
        value = doubleAttribute(r.double());
        break;
      case T.lenField5: {
        // ArrayValue { repeated AnyValue values = 1; }
        if (depth >= MAX_VALUE_DEPTH) r.fail(`attribute values nested deeper than ${MAX_VALUE_DEPTH} levels`);
        const items: AttributeValue[] = [];
        const arrayOuter = r.enter(r.lengthEnd());
        while (r.pos < r.limit) {
          const inner = r.tag();
          if (inner === T.lenField1) items.push(anyValue(r, depth + 1));
          else r.skip(inner);
        }
        r.leave(arrayOuter);
        value = items;
        break;
      }
      case T.lenField6: {
        // KeyValueList { repeated KeyValue values = 1; }
        if (depth >= MAX_VALUE_DEPTH) r.fail(`attribute values nested deeper than ${MAX_VALUE_DEPTH} levels`);
        const map: Attributes = {};
        const listOuter = r.enter(r.lengthEnd());
        while (r.pos < r.limit) {
          const inner = r.tag();
          if (inner === T.lenField1) keyValueInto(r, map, depth + 1);
          else r.skip(inner);
        }
        r.leave(listOuter);
        value = map;
        break;
      }
      case T.lenField7:
        value = r.base64();
        break;
      default:
        r.skip(tag);
    }
  }
  r.leave(outer);
  return value;
}

const TWO_32 = 4294967296;

/** An int64 from its unsigned halves: a number while exact, else a decimal string. */
function int64(lo: number, hi: number): number | string {
  const high = hi | 0;
  // |high| < 2^21 keeps high * 2^32 + lo within 2^53, where doubles are exact.
  if (high >= -0x200000 && high < 0x200000) {
    const n = high * TWO_32 + lo;
    if (Number.isSafeInteger(n)) return n;
  }
  return int64Attribute(BigInt(high) * 4294967296n + BigInt(lo));
}
