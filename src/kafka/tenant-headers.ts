// The tenant of an `otlp_proto` message, in headers the kafka exporter writes and the kafka
// receiver reads (a Collector's messages have none: the receiver's configured key decides then).
export const HEADER_ORG = 'faultline-org';
export const HEADER_PROJECT = 'faultline-project';
export const HEADER_DATASET = 'faultline-dataset';
