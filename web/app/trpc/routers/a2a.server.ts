import { A2A_PERMISSIONS } from '@service/core/db';
import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

const grants = z.object({
  allowedAgents: z.array(z.string().max(200)).max(200),
  permissions: z.array(z.enum(A2A_PERMISSIONS)).max(3),
  allowedPrimitives: z.array(z.string().max(100)).max(200).default([]),
});

export const a2aRouter = router({
  clients: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.oauth.clients.list(ctx.actor)),
    /** The secret is in this response only. */
    register: adminProcedure.input(grants.extend({ name: z.string().min(1).max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.register(ctx.actor, input)),
    rotate: adminProcedure.input(z.object({ clientId: z.string().max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.rotateSecret(ctx.actor, input.clientId)),
    revoke: adminProcedure.input(z.object({ clientId: z.string().max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.revoke(ctx.actor, input.clientId)),
    setGrants: adminProcedure.input(grants.extend({ clientId: z.string().max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.setGrants(ctx.actor, input.clientId, input)),
  }),
  peers: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.peers.list()),
    register: adminProcedure
      .input(z.object({ id: z.string().max(63), name: z.string().min(1).max(100), baseUrl: z.string().max(500), clientId: z.string().min(1).max(100), clientSecret: z.string().min(1).max(500), protocol: z.enum(['auto', '0.3']).optional() }))
      .mutation(({ ctx, input }) => ctx.services.peers.register(ctx.actor, input)),
    card: adminProcedure.input(z.object({ id: z.string().max(63) })).query(({ ctx, input }) => ctx.services.a2aClient.card(input.id)),
  }),
});
