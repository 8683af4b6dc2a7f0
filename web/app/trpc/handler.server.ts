import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Services } from '@service/core';
import { isAdmin } from '@service/core/auth';
import { DomainError } from '@service/core/errors';
import { errorResponse, readBytesLimited } from '@service/core/http';
import { contextFromHeaders, inContext } from '@service/core/telemetry';
import { getUser, readSessionId } from '../auth/session.server.ts';
import { appRouter, createCaller } from './router.server.ts';
import type { TrpcContext } from './init.server.ts';

export const TRPC_ENDPOINT = '/api/trpc';

/** The request part of the context: the actor comes from the session cookie. */
export async function createContext(request: Request, services: Services, clientAddress?: string): Promise<TrpcContext> {
  return { services, actor: await getUser(request, services), sessionId: await readSessionId(request, services), ...(clientAddress ? { clientAddress } : {}) };
}

/** Large enough for a zip import sent as base64 (5 MiB → ~6.7 MB), small enough to refuse floods. */
export const MAX_TRPC_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The session is resolved before the body: an admin's body is read up to the limit, anyone
 * else's is not read at all (every procedure is admin-only and refuses before it reads input).
 * A database outage while resolving the session is the 503 with the health state.
 */
export async function handleTrpc(request: Request, services: Services): Promise<Response> {
  let context: TrpcContext;
  try {
    context = await createContext(request, services);
  } catch (error) {
    if (error instanceof Response) return error;
    throw error;
  }
  let req = request;
  if (request.method === 'POST') {
    if (!isAdmin(context.actor)) {
      req = new Request(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array() });
    } else if (Number(request.headers.get('content-length') ?? 0) > MAX_TRPC_BODY_BYTES) {
      // Refused without touching the body: cancelling Remix's body stream destroys the socket,
      // so the client would see a reset instead of this answer.
      return errorResponse(new DomainError('PAYLOAD_TOO_LARGE', `The request body is larger than ${MAX_TRPC_BODY_BYTES} bytes`));
    } else {
      try {
        const body = await readBytesLimited(request, MAX_TRPC_BODY_BYTES);
        req = new Request(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(body) });
      } catch (error) {
        return errorResponse(error);
      }
    }
  }
  // The caller's trace (`traceparent`) is the parent of each procedure's span.
  return inContext(contextFromHeaders(request.headers), () =>
    fetchRequestHandler({
      endpoint: TRPC_ENDPOINT,
      req,
      router: appRouter,
      createContext: () => context,
    }),
  );
}

/** Server-side calls from loaders go through the same procedures and the same guards. */
export async function serverCaller(request: Request, services: Services, clientAddress?: string) {
  return createCaller(await createContext(request, services, clientAddress));
}
