import { DomainError } from '../errors/index.ts';
import { json, unavailableHeaders } from '../http/index.ts';
import { rpcErrorV1 } from './error-details-v1.ts';
import { restErrorResponse } from './rest/errors.ts';

const databaseUnavailable = () => new DomainError('DEPENDENCY_UNAVAILABLE', 'The database is unavailable; try again shortly');

/**
 * The 503 of a JSON-RPC endpoint while the database is down, answered before the body is read:
 * a JSON-RPC error (id null: the request's id is not known yet) whose data is the v1.0 ErrorInfo,
 * which a v0.3 client reads as free-form data.
 */
export function a2aRpcUnavailableResponse(host: string): Response {
  return json(rpcErrorV1(null, databaseUnavailable(), { serviceDomain: host }), { status: 503, headers: unavailableHeaders() });
}

/** The same for the HTTP+JSON binding: a google.rpc.Status body with Retry-After. */
export function a2aRestUnavailableResponse(): Response {
  return restErrorResponse(databaseUnavailable());
}
