import { toDomainError, type ErrorCode } from '../../errors/index.ts';
import { json, unavailableHeaders } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import { A2A_DOMAIN, BAD_REQUEST, ERROR_INFO } from '../error-info.ts';

export const REST_CONTENT_TYPE = 'application/a2a+json';

/** A JSON answer of the HTTP+JSON binding, in the media type the spec names for it (§11.1). */
export function restJson(body: unknown, init: ResponseInit = {}): Response {
  const response = json(body, init);
  response.headers.set('content-type', REST_CONTENT_TYPE);
  return response;
}

/**
 * The A2A error types and how the HTTP+JSON binding shows them (spec §5.4, §11.6): the HTTP
 * status, the google.rpc status name, and the `ErrorInfo.reason` that tells apart errors sharing
 * a status. These differ from the service's own HTTP mapping (TASK_NOT_CANCELABLE is 409 there).
 */
const A2A_ERRORS: Partial<Record<ErrorCode, { http: number; status: string; reason: string }>> = {
  NOT_FOUND: { http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND' },
  TASK_NOT_CANCELABLE: { http: 400, status: 'FAILED_PRECONDITION', reason: 'TASK_NOT_CANCELABLE' },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  UNSUPPORTED_OPERATION: { http: 400, status: 'FAILED_PRECONDITION', reason: 'UNSUPPORTED_OPERATION' },
  VERSION_NOT_SUPPORTED: { http: 400, status: 'FAILED_PRECONDITION', reason: 'VERSION_NOT_SUPPORTED' },
};

/** The google.rpc status name of the service's other errors, by their HTTP status. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  409: 'ABORTED',
  412: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  422: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  507: 'RESOURCE_EXHAUSTED',
};

/** The service's validation details (`{ path, reason }`) as google.rpc.BadRequest field violations. */
function fieldViolations(details: unknown): { field: string; description: string }[] {
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: unknown) => {
    const { path, reason } = (detail ?? {}) as { path?: unknown; reason?: unknown };
    return typeof reason === 'string' ? [{ field: typeof path === 'string' ? path : '', description: reason }] : [];
  });
}

/** A google.rpc.Status body (AIP-193) for anything thrown: `{ error: { code, status, message, details } }`. */
export function restErrorBody(error: unknown, logger?: Logger): { http: number; body: { error: { code: number; status: string; message: string; details: Record<string, unknown>[] } } } {
  const domain = toDomainError(error, logger);
  const { message, details } = domain.toPublicJSON();
  const a2a = A2A_ERRORS[domain.code];
  const http = a2a?.http ?? domain.httpStatus;
  const violations = fieldViolations(details);
  const detailObjects: Record<string, unknown>[] = [
    ...(a2a ? [{ '@type': ERROR_INFO, reason: a2a.reason, domain: A2A_DOMAIN }] : []),
    ...(violations.length ? [{ '@type': BAD_REQUEST, fieldViolations: violations }] : []),
  ];
  return { http, body: { error: { code: http, status: a2a?.status ?? STATUS_NAMES[http] ?? (http >= 500 ? 'INTERNAL' : 'UNKNOWN'), message, details: detailObjects } } };
}

/** The HTTP answer for anything thrown: the mapped status, a google.rpc.Status body, Retry-After on a 503. */
export function restErrorResponse(error: unknown, logger?: Logger, headers: Record<string, string> = {}): Response {
  const { http, body } = restErrorBody(error, logger);
  return restJson(body, { status: http, headers: { ...(http === 503 ? unavailableHeaders() : {}), ...headers } });
}
