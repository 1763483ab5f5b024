// `otlp_proto` for spans: what the OpenTelemetry Collector's kafka exporter writes with
// `encoding: otlp_proto` — one OTLP TracesData protobuf per message (wire-identical to an
// ExportTraceServiceRequest: field 1, repeated ResourceSpans). We write one message per project
// per batch, keyed by project, the tenant in headers (faultline-org, faultline-project,
// faultline-dataset) so that our own receiver need not guess it; a Collector's messages have no
// such headers and the receiver takes the tenant from its configured key instead.
// A small hand-written encoder (the receiver's decoder is hand-written too): varints, length-
// delimited fields and fixed64 times are all OTLP spans need.
import type { Message } from 'kafkajs';
import type { Item } from '../../src/engine/item.js';
import { HEADER_DATASET, HEADER_ORG, HEADER_PROJECT } from '../../src/kafka/tenant-headers.js';
import { SPAN_KINDS, SPAN_STATUSES, type AttributeValue, type Attributes, type Span } from '../../src/records/span.js';

class Writer {
  private chunks: Buffer[] = [];
  private length = 0;

  private push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
  }

  varint(value: number | bigint): this {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v) byte |= 0x80;
      bytes.push(byte);
    } while (v);
    this.push(Buffer.from(bytes));
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.varint((field << 3) | wireType);
  }

  bytes(field: number, value: Buffer): this {
    this.tag(field, 2).varint(value.length);
    this.push(value);
    return this;
  }

  string(field: number, value: string | undefined): this {
    return value ? this.bytes(field, Buffer.from(value, 'utf8')) : this;
  }

  message(field: number, write: (w: Writer) => void): this {
    const inner = new Writer();
    write(inner);
    return this.bytes(field, inner.finish());
  }

  fixed64(field: number, value: bigint): this {
    const buf = Buffer.alloc(8);
    buf.writeBigUInt64LE(BigInt.asUintN(64, value));
    this.tag(field, 1);
    this.push(buf);
    return this;
  }

  double(field: number, value: number): this {
    const buf = Buffer.alloc(8);
    buf.writeDoubleLE(value);
    this.tag(field, 1);
    this.push(buf);
    return this;
  }

  uint(field: number, value: number): this {
    return value ? this.tag(field, 0).varint(value) : this;
  }

  finish(): Buffer {
    return Buffer.concat(this.chunks, this.length);
  }
}

/** Hex ids (the normal case) as their bytes; any other id as its UTF-8 text. */
function idBytes(id: string): Buffer {
  return /^(?:[0-9a-f]{2})+$/.test(id) ? Buffer.from(id, 'hex') : Buffer.from(id, 'utf8');
}

function anyValue(w: Writer, value: AttributeValue): void {
  if (typeof value === 'string') w.bytes(1, Buffer.from(value, 'utf8'));
  else if (typeof value === 'boolean') w.tag(2, 0).varint(value ? 1 : 0);
  else if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) w.tag(3, 0).varint(BigInt(value));
    else w.double(4, value);
  } else if (Array.isArray(value)) w.message(5, (array) => value.forEach((v) => array.message(1, (inner) => anyValue(inner, v))));
  else if (value !== null && typeof value === 'object') w.message(6, (list) => keyValues(list, 1, value));
  // null: an empty AnyValue
}

function keyValues(w: Writer, field: number, attributes: Attributes): void {
  for (const [key, value] of Object.entries(attributes)) w.message(field, (kv) => kv.string(1, key).message(2, (v) => anyValue(v, value)));
}

function span(w: Writer, s: Span): void {
  w.bytes(1, idBytes(s.trace_id)).bytes(2, idBytes(s.span_id)).string(3, s.trace_state);
  if (s.parent_span_id) w.bytes(4, idBytes(s.parent_span_id));
  w.string(5, s.name).uint(6, SPAN_KINDS.indexOf(s.kind)).fixed64(7, s.start_time_unix_nano).fixed64(8, s.end_time_unix_nano);
  keyValues(w, 9, s.attributes);
  for (const event of s.events) w.message(11, (e) => (e.fixed64(1, event.time_unix_nano).string(2, event.name), keyValues(e, 3, event.attributes)));
  for (const link of s.links)
    w.message(13, (l) => (l.bytes(1, idBytes(link.trace_id)).bytes(2, idBytes(link.span_id)).string(3, link.trace_state), keyValues(l, 4, link.attributes)));
  if (s.status !== 'unset' || s.status_message) w.message(15, (st) => st.string(2, s.status_message).uint(3, SPAN_STATUSES.indexOf(s.status)));
}

/** One TracesData of the spans, a ResourceSpans per distinct resource (and scope). */
export function encodeTracesData(spans: readonly Span[]): Buffer {
  const resources = new Map<string, { resource: Attributes; scopes: Map<string, Span[]> }>();
  for (const s of spans) {
    const resourceKey = JSON.stringify(s.resource_attributes);
    const entry = resources.get(resourceKey) ?? { resource: s.resource_attributes, scopes: new Map<string, Span[]>() };
    const scopeKey = JSON.stringify(s.scope ?? null);
    const group = entry.scopes.get(scopeKey);
    if (group) group.push(s);
    else entry.scopes.set(scopeKey, [s]);
    resources.set(resourceKey, entry);
  }
  const w = new Writer();
  for (const { resource, scopes } of resources.values()) {
    w.message(1, (rs) => {
      rs.message(1, (r) => keyValues(r, 1, resource));
      for (const group of scopes.values()) {
        rs.message(2, (ss) => {
          const scope = group[0].scope;
          if (scope) ss.message(1, (sc) => (sc.string(1, scope.name).string(2, scope.version), keyValues(sc, 3, scope.attributes ?? {})));
          for (const s of group) ss.message(2, (sw) => span(sw, s));
        });
      }
    });
  }
  return w.finish();
}

/** One message per tenant of the batch, keyed by project. */
export function encodeOtlpMessages(items: readonly Item<Span>[]): Message[] {
  const byTenant = new Map<string, Item<Span>[]>();
  for (const item of items) {
    const key = `${item.tenant.orgId}\u0000${item.tenant.projectId}\u0000${item.tenant.dataset}`;
    const group = byTenant.get(key);
    if (group) group.push(item);
    else byTenant.set(key, [item]);
  }
  return [...byTenant.values()].map((group) => {
    const { tenant } = group[0];
    return {
      key: tenant.projectId,
      value: encodeTracesData(group.map((item) => item.data)),
      headers: { [HEADER_ORG]: tenant.orgId, [HEADER_PROJECT]: tenant.projectId, [HEADER_DATASET]: tenant.dataset },
    };
  });
}
