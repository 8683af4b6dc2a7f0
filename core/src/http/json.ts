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
  return json({ error: domain.toPublicJSON() }, { status: domain.httpStatus });
}
