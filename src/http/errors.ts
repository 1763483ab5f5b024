// The one error body every endpoint answers with:
// {"error": {"code", "message", "details": [{"path", "message"}], "request_id"}}
import type { FieldError } from '../engine/item.js';

export type ErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'validation_failed'
  | 'invalid_parameter'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_header_fields_too_large'
  | 'client_closed_request'
  | 'rate_limited'
  | 'overloaded'
  | 'unavailable'
  | 'internal';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const errors = {
  invalidJson: (message = 'the body is not valid JSON') => new ApiError(400, 'invalid_json', message),
  validation: (message: string, details: FieldError[]) => new ApiError(400, 'validation_failed', message, details),
  invalidParameter: (path: string, message: string) => new ApiError(400, 'invalid_parameter', `invalid parameter ${path}: ${message}`, [{ path, message }]),
  unauthorized: (message = 'a valid API key is required: Authorization: Bearer <key>') =>
    new ApiError(401, 'unauthorized', message, [], { 'www-authenticate': 'Bearer realm="faultline"' }),
  forbidden: (message: string) => new ApiError(403, 'forbidden', message),
  notFound: (message = 'not found') => new ApiError(404, 'not_found', message),
  methodNotAllowed: (allow: string[]) =>
    new ApiError(405, 'method_not_allowed', `method not allowed; allowed: ${allow.join(', ')}`, [], { allow: allow.join(', ') }),
  /** The body did not arrive in time; the rest of it is not read, so the connection closes. */
  requestTimeout: (ms: number) =>
    new ApiError(408, 'request_timeout', `the body did not arrive within ${ms} ms; send it faster or in smaller requests`, [], { connection: 'close' }),
  tooLarge: (limit: number) => new ApiError(413, 'payload_too_large', `the body is larger than ${limit} bytes`),
  unsupportedMediaType: (message: string) => new ApiError(415, 'unsupported_media_type', message),
  rateLimited: (retryAfter: number) => new ApiError(429, 'rate_limited', 'too many requests for this API key', [], { 'retry-after': String(retryAfter) }),
  overloaded: (retryAfter: number) =>
    new ApiError(503, 'overloaded', 'the service is over its in-flight budget; retry later', [], { 'retry-after': String(retryAfter) }),
  unavailable: (message: string, retryAfter = 5) => new ApiError(503, 'unavailable', message, [], { 'retry-after': String(retryAfter) }),
};

export function errorBody(error: ApiError, requestId: string): string {
  return JSON.stringify({
    error: { code: error.code, message: error.message, details: error.details, request_id: requestId },
  });
}
