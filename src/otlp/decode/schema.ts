// The OTLP trace protobuf schema, resolved once at module load from src/otlp/proto/*.proto
// (found from the package root, so it works from src/ and dist/; package.json ships the folder).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { packageRoot } from '../../paths.js';

/** Imports before importers. */
export const PROTO_FILE_NAMES = ['common.proto', 'resource.proto', 'trace.proto', 'trace_service.proto', 'status.proto'] as const;
export const PROTO_DIR = join(packageRoot, 'src/otlp/proto');

function buildRoot(): protobuf.Root {
  const root = new protobuf.Root();
  // Field names become lowerCamelCase (trace_id -> traceId), as in OTLP/JSON.
  for (const name of PROTO_FILE_NAMES) protobuf.parse(readFileSync(join(PROTO_DIR, name), 'utf8'), root, { keepCase: false });
  root.resolveAll();
  return root;
}

/** Every type of src/otlp/proto/, by fully qualified name. */
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
