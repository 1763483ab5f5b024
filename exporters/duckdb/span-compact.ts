// One span as the `spanbatch2` batch document stores it (span-batch.ts): a JSON array of its
// fields in a fixed order, without the part the spans of a request share (their resource's and
// scope's JSON, stored once in the batch), made by one JSON.stringify. The span's document is made
// from it when read: the same text spanDocumentJson makes at ingest. Making the document itself at
// ingest cost more, and left more garbage per span, than this array; reads are rare against writes.
//
// The array: [shared part, trace_id, span_id, parent_span_id, name, service_name, status, kind,
// status_message or null, trace_state or null, start ns, end ns (decimal strings), attributes,
// links, events as [name, time ns, attributes]]. The values are JSON's own (validated attribute
// values; bigints as decimal strings), so JSON.stringify(JSON.parse(text)) gives each back as
// JSON.stringify gave it first: attributes, links and events read back as they were written.
import { spanDocumentHead, spanDocumentTail } from '../../src/records/span-document.js';
import type { Attributes, Span, SpanKind, SpanLink, SpanStatus } from '../../src/records/span.js';
import { spanColumns, type SpanColumns } from '../../src/records/span-row.js';

type CompactEvent = [name: string, time: string, attributes: Attributes];

type CompactSpan = [
  part: number,
  traceId: string,
  spanId: string,
  parentSpanId: string,
  name: string,
  serviceName: string,
  status: SpanStatus,
  kind: SpanKind,
  statusMessage: string | null,
  traceState: string | null,
  start: string,
  end: string,
  attributes: Attributes,
  links: SpanLink[],
  events: CompactEvent[],
];

const NO_EVENTS: CompactEvent[] = [];

/** The span's array as JSON text; `part`: the number of its shared part in the batch. */
export function compactSpanJson(span: Span, part: number): string {
  const events = span.events.length ? span.events.map((e): CompactEvent => [e.name, e.time_unix_nano.toString(), e.attributes]) : NO_EVENTS;
  const compact: CompactSpan = [
    part,
    span.trace_id,
    span.span_id,
    span.parent_span_id,
    span.name,
    span.service_name,
    span.status,
    span.kind,
    span.status_message ?? null,
    span.trace_state ?? null,
    span.start_time_unix_nano.toString(),
    span.end_time_unix_nano.toString(),
    span.attributes,
    span.links,
    events,
  ];
  return JSON.stringify(compact);
}

/** The span an array holds, but for its resource and scope (in the batch's shared part). */
function spanOf(c: CompactSpan, receivedAt: string): Span {
  const span: Span = {
    trace_id: c[1],
    span_id: c[2],
    parent_span_id: c[3],
    name: c[4],
    service_name: c[5],
    status: c[6],
    kind: c[7],
    start_time_unix_nano: BigInt(c[10]),
    end_time_unix_nano: BigInt(c[11]),
    attributes: c[12],
    links: c[13],
    events: c[14].map(([name, time, attributes]) => ({ name, time_unix_nano: BigInt(time), attributes })),
    resource_attributes: {},
    project_id: '',
    received_at: receivedAt,
  };
  if (c[8] !== null) span.status_message = c[8];
  if (c[9] !== null) span.trace_state = c[9];
  return span;
}

/** The span's document (spanDocumentJson's text), from its array's text and the batch's shared parts. */
export function compactSpanDocument(text: string, parts: readonly string[]): string {
  const c = JSON.parse(text) as CompactSpan;
  const part = parts[c[0]];
  if (part === undefined) throw new Error('a span batch document names a shared part it lacks');
  const span = spanOf(c, '');
  return spanDocumentHead(span) + part + spanDocumentTail(span);
}

/** The span's row columns, from its array's text (after a restart, to index it). */
export function compactSpanColumns(text: string, receivedAt: string): SpanColumns {
  return spanColumns(spanOf(JSON.parse(text) as CompactSpan, receivedAt));
}
