// The OTLP trace decoders: request bodies (protobuf or JSON) into span inputs, and the response
// and error bodies of OTLP/HTTP.
export { OtlpDecodeError, type OtlpEncoding } from './errors.js';
export { decodeTraceRequestProtobuf, encodeStatusProtobuf, encodeTraceResponseProtobuf, type PartialSuccess } from './protobuf.js';
export { decodeTraceRequestJson, encodeStatusJson, encodeTraceResponseJson } from './json.js';
export { countSpans, otlpIdErrors, type DecodedResourceSpans, type DecodedTraceRequest } from './to-span-inputs.js';
