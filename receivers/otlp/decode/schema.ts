// The OTLP trace protobuf schema, resolved once at module load from the embedded copies of
// receivers/otlp/proto/*.proto (see proto-files.ts for why they are embedded).
import protobuf from 'protobufjs';
import { PROTO_FILES } from './proto-files.js';

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  // Field names become lowerCamelCase (trace_id -> traceId), as in OTLP/JSON.
  for (const text of Object.values(PROTO_FILES)) protobuf.parse(text, root, { keepCase: false });
  root.resolveAll();
  return root;
}

/** Every type of receivers/otlp/proto/, by fully qualified name. */
export const otlpRoot: protobuf.Root = buildRoot();

const type = (name: string): protobuf.Type => otlpRoot.lookupType(name);

export const ExportTraceServiceRequest = type('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
export const ExportTraceServiceResponse = type('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
export const ExportTracePartialSuccess = type('opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess');
export const TracesData = type('opentelemetry.proto.trace.v1.TracesData');
export const ResourceSpans = type('opentelemetry.proto.trace.v1.ResourceSpans');
export const ScopeSpans = type('opentelemetry.proto.trace.v1.ScopeSpans');
export const Span = type('opentelemetry.proto.trace.v1.Span');
export const Status = type('opentelemetry.proto.trace.v1.Status');
export const Resource = type('opentelemetry.proto.resource.v1.Resource');
export const InstrumentationScope = type('opentelemetry.proto.common.v1.InstrumentationScope');
export const KeyValue = type('opentelemetry.proto.common.v1.KeyValue');
export const AnyValue = type('opentelemetry.proto.common.v1.AnyValue');
/** google.rpc.Status: the body of an OTLP/HTTP error response. */
export const RpcStatus = type('google.rpc.Status');
