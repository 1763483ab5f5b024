// GENERATED from receivers/otlp/proto/*.proto, which are the readable source: edit those, then copy
// each file's text here unchanged (test/receivers/otlp-decode.test.ts fails until both agree).
// Embedded because the build copies only .ts to dist/ and the published package ships dist/
// without receivers/, so the .proto files are not there at run time.

/** File name (relative to receivers/otlp/proto/) to the file's text, imports before importers. */
export const PROTO_FILES: Readonly<Record<string, string>> = {
  'common.proto': `// Faultline's copy of opentelemetry/proto/common/v1/common.proto (opentelemetry-proto v1.x),
// reduced to what OTLP/HTTP traces use. Field numbers are the upstream ones.
// Keep in sync with receivers/otlp/decode/proto-files.ts (a test checks).
syntax = "proto3";

package opentelemetry.proto.common.v1;

// A value of an attribute: exactly one of the fields is set; none set means an empty value.
message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}

message ArrayValue {
  repeated AnyValue values = 1;
}

message KeyValueList {
  repeated KeyValue values = 1;
}

message KeyValue {
  string key = 1;
  AnyValue value = 2;
}

message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
`,
  'resource.proto': `// Faultline's copy of opentelemetry/proto/resource/v1/resource.proto (opentelemetry-proto v1.x).
// Keep in sync with receivers/otlp/decode/proto-files.ts (a test checks).
syntax = "proto3";

package opentelemetry.proto.resource.v1;

import "common.proto";

message Resource {
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}
`,
  'trace.proto': `// Faultline's copy of opentelemetry/proto/trace/v1/trace.proto (opentelemetry-proto v1.x).
// Field numbers are the upstream ones. Keep in sync with receivers/otlp/decode/proto-files.ts
// (a test checks).
syntax = "proto3";

package opentelemetry.proto.trace.v1;

import "common.proto";
import "resource.proto";

message TracesData {
  repeated ResourceSpans resource_spans = 1;
}

message ResourceSpans {
  reserved 1000; // the removed instrumentation_library_spans
  opentelemetry.proto.resource.v1.Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}

message ScopeSpans {
  opentelemetry.proto.common.v1.InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  // W3C trace flags in bits 0-7; bits 8-9 say whether the parent was remote (see SpanFlags).
  fixed32 flags = 16;
  string name = 5;

  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  SpanKind kind = 6;

  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated opentelemetry.proto.common.v1.KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;

  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  repeated Event events = 11;
  uint32 dropped_events_count = 12;

  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated opentelemetry.proto.common.v1.KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
  repeated Link links = 13;
  uint32 dropped_links_count = 14;

  Status status = 15;
}

message Status {
  reserved 1;
  string message = 2;

  enum StatusCode {
    STATUS_CODE_UNSET = 0;
    STATUS_CODE_OK = 1;
    STATUS_CODE_ERROR = 2;
  };
  StatusCode code = 3;
}

enum SpanFlags {
  SPAN_FLAGS_DO_NOT_USE = 0;
  SPAN_FLAGS_TRACE_FLAGS_MASK = 0x000000FF;
  SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK = 0x00000100;
  SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK = 0x00000200;
}
`,
  'trace_service.proto': `// Faultline's copy of opentelemetry/proto/collector/trace/v1/trace_service.proto
// (opentelemetry-proto v1.x): the OTLP/HTTP POST /v1/traces request and response bodies.
// Keep in sync with receivers/otlp/decode/proto-files.ts (a test checks).
syntax = "proto3";

package opentelemetry.proto.collector.trace.v1;

import "trace.proto";

service TraceService {
  rpc Export(ExportTraceServiceRequest) returns (ExportTraceServiceResponse) {}
}

message ExportTraceServiceRequest {
  repeated opentelemetry.proto.trace.v1.ResourceSpans resource_spans = 1;
}

message ExportTraceServiceResponse {
  // Left unset when every span was accepted.
  ExportTracePartialSuccess partial_success = 1;
}

message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}
`,
  'status.proto': `// Faultline's copy of google/rpc/status.proto: the body of an OTLP/HTTP error response
// (4xx/5xx) in the protobuf encoding. Keep in sync with receivers/otlp/decode/proto-files.ts
// (a test checks).
syntax = "proto3";

package google.rpc;

message Status {
  int32 code = 1;
  string message = 2;
  repeated Any details = 3;
}

// Wire-compatible with google.protobuf.Any; declared here so that the schema needs no imports
// beyond this directory. Faultline never sends details.
message Any {
  string type_url = 1;
  bytes value = 2;
}
`,
};
