import { z } from 'zod';
import { A2A_PERMISSION_NAMES, peerBaseUrl, peerClientId, peerClientSecret, peerId, peerName, peerProtocol } from '../../schemas/a2a.ts';
import { adminProcedure, router } from '../init.server.ts';

const grants = z.object({
  allowedAgents: z.array(z.string().max(200)).max(200),
  permissions: z.array(z.enum(A2A_PERMISSION_NAMES)).max(3),
  allowedPrimitives: z.array(z.string().max(100)).max(200).default([]),
});

export const a2aRouter = router({
  clients: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.oauth.clients.list(ctx.actor)),
    /** The secret is in this response only. */
    register: adminProcedure.input(grants.extend({ name: z.string().min(1).max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.register(ctx.actor, input)),
    rotate: adminProcedure.input(z.object({ clientId: z.string().max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.rotateSecret(ctx.actor, input.clientId)),
    revoke: adminProcedure.input(z.object({ clientId: z.string().max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.clients.revoke(ctx.actor, input.clientId)),
    setGrants: adminProcedure.input(grants.extend({ clientId: z.string().max(100), name: z.string().min(1).max(100).optional() })).mutation(({ ctx, input }) => ctx.services.oauth.clients.setGrants(ctx.actor, input.clientId, input)),
  }),
  /** The agent a message naming none goes to (`metadata.skillId` absent): null = the only one, if one. */
  defaultAgent: router({
    get: adminProcedure.query(({ ctx }) => ctx.services.useCases.defaultAgent.get()),
    set: adminProcedure.input(z.object({ agent: z.string().max(214).nullable() })).mutation(({ ctx, input }) => ctx.services.useCases.defaultAgent.set(ctx.actor, input.agent)),
  }),
  peers: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.peers.list()),
    register: adminProcedure
      .input(z.object({ id: peerId, name: peerName, baseUrl: peerBaseUrl, clientId: peerClientId, clientSecret: peerClientSecret.optional(), protocol: peerProtocol.optional() }))
      .mutation(async ({ ctx, input }) => {
        const peer = await ctx.services.peers.register(ctx.actor, input);
        ctx.services.a2aClient.forget(peer.id);
        return peer;
      }),
    remove: adminProcedure.input(z.object({ id: peerId })).mutation(async ({ ctx, input }) => {
      await ctx.services.peers.remove(ctx.actor, input.id);
      ctx.services.a2aClient.forget(input.id);
    }),
    card: adminProcedure.input(z.object({ id: z.string().max(63) })).query(({ ctx, input }) => ctx.services.a2aClient.card(input.id)),
  }),
});
