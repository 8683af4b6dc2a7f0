/**
 * The closed set of error codes, and how each one surfaces on every transport.
 * Adding a code means adding one row here; nothing else maps errors.
 */
export const ERROR_TABLE = {
  // JSON-RPC: -32700/-32600/-32601/-32602/-32603 are the standard codes, -32001..-32009 the
  // A2A ones (task not found, not cancelable, push unsupported, unsupported operation, version
  // not supported), and
  // -32050.. this service's own, inside the implementation-defined server-error range.
  PARSE_ERROR: { http: 400, jsonRpc: -32700, trpc: 'PARSE_ERROR' },
  BAD_REQUEST: { http: 400, jsonRpc: -32600, trpc: 'BAD_REQUEST' },
  METHOD_NOT_FOUND: { http: 404, jsonRpc: -32601, trpc: 'NOT_FOUND' },
  VALIDATION_FAILED: { http: 400, jsonRpc: -32602, trpc: 'BAD_REQUEST' },
  NOT_FOUND: { http: 404, jsonRpc: -32001, trpc: 'NOT_FOUND' },
  TASK_NOT_CANCELABLE: { http: 409, jsonRpc: -32002, trpc: 'CONFLICT' },
  UNSUPPORTED_OPERATION: { http: 400, jsonRpc: -32004, trpc: 'BAD_REQUEST' },
  /** A2A: push notifications are not offered (the card says so). */
  PUSH_NOTIFICATION_NOT_SUPPORTED: { http: 400, jsonRpc: -32003, trpc: 'BAD_REQUEST' },
  /** A2A: the `A2A-Version` a client asked for is not one this service speaks. */
  VERSION_NOT_SUPPORTED: { http: 400, jsonRpc: -32009, trpc: 'BAD_REQUEST' },
  UNAUTHENTICATED: { http: 401, jsonRpc: -32050, trpc: 'UNAUTHORIZED' },
  FORBIDDEN: { http: 403, jsonRpc: -32051, trpc: 'FORBIDDEN' },
  CONFLICT: { http: 409, jsonRpc: -32052, trpc: 'CONFLICT' },
  PAYLOAD_TOO_LARGE: { http: 413, jsonRpc: -32600, trpc: 'PAYLOAD_TOO_LARGE' },
  RATE_LIMITED: { http: 429, jsonRpc: -32053, trpc: 'TOO_MANY_REQUESTS' },
  REVIEW_FAILED: { http: 422, jsonRpc: -32602, trpc: 'UNPROCESSABLE_CONTENT' },
  REGISTRY_NOT_CONFIGURED: { http: 412, jsonRpc: -32054, trpc: 'PRECONDITION_FAILED' },
  INTEGRITY_MISMATCH: { http: 502, jsonRpc: -32055, trpc: 'BAD_GATEWAY' },
  UPSTREAM_FAILED: { http: 502, jsonRpc: -32056, trpc: 'BAD_GATEWAY' },
  /** The outbound policy refused a URL (scheme, credentials in it, a private address). */
  OUTBOUND_REFUSED: { http: 422, jsonRpc: -32057, trpc: 'UNPROCESSABLE_CONTENT' },
  /** The database refused a write for lack of disk space: nothing was stored (507 Insufficient Storage). */
  STORAGE_FULL: { http: 507, jsonRpc: -32058, trpc: 'INTERNAL_SERVER_ERROR' },
  CONFIG_INVALID: { http: 500, jsonRpc: -32603, trpc: 'INTERNAL_SERVER_ERROR' },
  SEALED_SECRET_MALFORMED: { http: 500, jsonRpc: -32603, trpc: 'INTERNAL_SERVER_ERROR' },
  SEALED_SECRET_UNKNOWN_KEY: { http: 500, jsonRpc: -32603, trpc: 'INTERNAL_SERVER_ERROR' },
  SEALED_SECRET_INVALID: { http: 500, jsonRpc: -32603, trpc: 'INTERNAL_SERVER_ERROR' },
  /** A dependency (the database) cannot be reached now: answered with 503 and Retry-After. */
  DEPENDENCY_UNAVAILABLE: { http: 503, jsonRpc: -32059, trpc: 'INTERNAL_SERVER_ERROR' },
  INTERNAL: { http: 500, jsonRpc: -32603, trpc: 'INTERNAL_SERVER_ERROR' },
} as const satisfies Record<string, { http: number; jsonRpc: number; trpc: TrpcCode }>;

/** tRPC's error code names, kept here so core does not depend on tRPC. */
type TrpcCode =
  | 'PARSE_ERROR'
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE_CONTENT'
  | 'BAD_GATEWAY'
  | 'TOO_MANY_REQUESTS'
  | 'INTERNAL_SERVER_ERROR';

export type ErrorCode = keyof typeof ERROR_TABLE;

export function errorMapping(code: ErrorCode) {
  return ERROR_TABLE[code];
}
