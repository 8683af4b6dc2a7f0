import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import type { Services } from '@service/core';
import { getUser } from '../auth/session.server.ts';
import { appRouter, createCaller } from './router.server.ts';
import type { TrpcContext } from './init.server.ts';

export const TRPC_ENDPOINT = '/api/trpc';

/** The request part of the context: the actor comes from the session cookie. */
export async function createContext(request: Request, services: Services): Promise<TrpcContext> {
  return { services, actor: await getUser(request, services) };
}

export function handleTrpc(request: Request, services: Services): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: request,
    router: appRouter,
    createContext: () => createContext(request, services),
  });
}

/** Server-side calls from loaders go through the same procedures and the same guards. */
export async function serverCaller(request: Request, services: Services) {
  return createCaller(await createContext(request, services));
}
