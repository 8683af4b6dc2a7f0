import { toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
  // Encoded once here: the length lets a node:http server send the whole answer in one write.
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  headers.set('content-length', String(bytes.byteLength));
  return new Response(bytes, { ...init, headers });
}

/** The one JSON error body of every HTTP seam: `{ error: { code, message, details? } }`. */
export function errorResponse(error: unknown, logger?: Logger): Response {
  const domain = toDomainError(error, logger);
  return json({ error: domain.toPublicJSON() }, { status: domain.httpStatus, ...(domain.httpStatus === 503 ? { headers: unavailableHeaders() } : {}) });
}

/** How long a client is asked to wait when a dependency is down (the database restarts within seconds). */
export const RETRY_AFTER_SECONDS = 5;

export const unavailableHeaders = (): Record<string, string> => ({ 'retry-after': String(RETRY_AFTER_SECONDS) });

/** The answer of every route while the database cannot be reached: 503 with Retry-After, at once. */
export function unavailableResponse(): Response {
  return json({ error: { code: 'DEPENDENCY_UNAVAILABLE', message: 'The database is unavailable; try again shortly' } }, { status: 503, headers: unavailableHeaders() });
}
