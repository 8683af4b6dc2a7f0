import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Services } from '@service/core';
import { errorResponse, readBytesLimited } from '@service/core/http';
import { getUser } from '../auth/session.server.ts';
import { appRouter, createCaller } from './router.server.ts';
import type { TrpcContext } from './init.server.ts';

export const TRPC_ENDPOINT = '/api/trpc';

/** The request part of the context: the actor comes from the session cookie. */
export async function createContext(request: Request, services: Services): Promise<TrpcContext> {
  return { services, actor: await getUser(request, services) };
}

/** Large enough for a zip import sent as base64 (5 MiB → ~6.7 MB), small enough to refuse floods. */
export const MAX_TRPC_BODY_BYTES = 8 * 1024 * 1024;

export async function handleTrpc(request: Request, services: Services): Promise<Response> {
  let req = request;
  if (request.method === 'POST') {
    try {
      const body = await readBytesLimited(request, MAX_TRPC_BODY_BYTES);
      req = new Request(request.url, { method: 'POST', headers: request.headers, body: new Uint8Array(body) });
    } catch (error) {
      return errorResponse(error);
    }
  }
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: () => createContext(request, services),
  });
}

/** Server-side calls from loaders go through the same procedures and the same guards. */
export async function serverCaller(request: Request, services: Services) {
  return createCaller(await createContext(request, services));
}
