// A third-party OTLP decoder for the bench (protobufjs over the OTLP .proto files the package
// ships in src/otlp/proto: the public opentelemetry-proto schema, read as data), so the spans
// baseline and the bench's own checks never run Faultline's decoder.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from './paths.js';

const FILES = ['common.proto', 'resource.proto', 'trace.proto', 'trace_service.proto'];

function exportTraceServiceRequest(): protobuf.Type {
  const root = new protobuf.Root();
  for (const name of FILES) protobuf.parse(readFileSync(join(packageRoot, 'src/otlp/proto', name), 'utf8'), root, { keepCase: true });
  root.resolveAll();
  return root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
}

export interface DecodedSpan {
  trace_id: Uint8Array;
  span_id: Uint8Array;
  parent_span_id: Uint8Array;
}

export interface DecodedRequest {
  resource_spans: Array<{ scope_spans: Array<{ spans: DecodedSpan[] }> }>;
}

let type: protobuf.Type | undefined;

/** protobufjs' generic decode of an ExportTraceServiceRequest (message objects, Longs for 64-bit fields). */
export function decodeOtlpTraces(body: Uint8Array): DecodedRequest {
  type ??= exportTraceServiceRequest();
  return type.decode(body) as unknown as DecodedRequest;
}

export function spansOf(request: DecodedRequest): DecodedSpan[] {
  return request.resource_spans.flatMap((r) => r.scope_spans.flatMap((s) => s.spans));
}
