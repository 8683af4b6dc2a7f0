import { initTRPC, TRPCError } from '@trpc/server';
import type { Services } from '@service/core';
import { isAdmin, type Actor } from '@service/core/auth';
import { isDomainError, toDomainError } from '@service/core/errors';
import { failSpan, inSpan, SpanKind } from '@service/core/telemetry';

/** Inner context: everything a procedure may use, constructible in tests without a request. */
export interface TrpcContext {
  services: Services;
  actor: Actor | null;
  /** The session cookie's id, for the account procedures (which session is "this one"); absent outside a request. */
  sessionId?: string | null;
  /** The client's address as the sign-in throttle counts it (the load context's), when the caller knows it. */
  clientAddress?: string;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const domain = isDomainError(error.cause) ? error.cause : null;
    // Stack traces stay on the server, whatever NODE_ENV says.
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, data: { ...data, domainCode: domain?.code ?? null, details: domain?.code !== 'INTERNAL' ? (domain?.details ?? null) : null } };
  },
});

/** DomainErrors keep their meaning over tRPC: the table decides the tRPC code; anything else is internal and logged once. */
const mapDomainErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  // tRPC wraps anything that is not a TRPCError as INTERNAL_SERVER_ERROR with the original as cause.
  if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') {
    const domain = toDomainError(result.error.cause ?? result.error, ctx.services.logger);
    throw new TRPCError({ code: domain.trpcCode, message: domain.toPublicJSON().message, cause: domain });
  }
  return result;
});

/**
 * Every procedure is a server span `trpc <path>` (admin actions are an inbound seam too), a child
 * of the trace the request came with. Its attributes name the procedure and its outcome code,
 * never its input or output.
 */
const traced = t.middleware(({ path, type, next }) =>
  inSpan(`trpc ${path}`, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'trpc', 'rpc.method': path, 'service.trpc.type': type } }, async (span) => {
    const result = await next();
    span.setAttribute('rpc.response.status_code', result.ok ? 'OK' : result.error.code);
    if (!result.ok && result.error.code === 'INTERNAL_SERVER_ERROR') failSpan(span, { code: result.error.code });
    return result;
  }),
);

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(traced).use(mapDomainErrors);

/** Narrows the context to a signed-in admin: anonymous is UNAUTHORIZED, anyone else FORBIDDEN. */
export const adminProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in required' });
  if (!isAdmin(ctx.actor)) throw new TRPCError({ code: 'FORBIDDEN', message: 'Admins only' });
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});
