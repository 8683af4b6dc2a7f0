import { z } from 'zod';
import { mcpServerId, mcpServerName, mcpServerUrl } from '../../schemas/mcp-servers.ts';
import { adminProcedure, router } from '../init.server.ts';

const serverAuth = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('bearer'), token: z.string().min(1).max(4000).optional() }),
  z.object({ kind: z.literal('oauth'), clientId: z.string().trim().min(1).max(200), clientSecret: z.string().min(1).max(500).optional(), issuer: z.string().trim().max(500).optional() }),
]);

/** MCP apps an admin connected on the consent page (OAuth authorization code grants), and MCP servers whose tools agents use. */
export const mcpRouter = router({
  connections: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.oauth.consents.list(ctx.actor)),
    /** Its refresh tokens stop at once, its access tokens within a second. */
    revoke: adminProcedure.input(z.object({ grantId: z.string().min(1).max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.consents.revoke(ctx.actor, input.grantId)),
  }),
  servers: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.mcpServers.list()),
    /** Registers or changes a server (credentials left out are kept) and lists its tools; a server that does not answer is kept with the reason. */
    register: adminProcedure
      .input(z.object({ id: mcpServerId, name: mcpServerName, url: mcpServerUrl, auth: serverAuth, agents: z.array(z.string().trim().min(1).max(214)).max(100) }))
      .mutation(({ ctx, input }) => ctx.services.mcpServers.register(ctx.actor, input)),
    refresh: adminProcedure.input(z.object({ id: mcpServerId })).mutation(({ ctx, input }) => ctx.services.mcpServers.refresh(ctx.actor, input.id)),
    remove: adminProcedure.input(z.object({ id: mcpServerId })).mutation(({ ctx, input }) => ctx.services.mcpServers.remove(ctx.actor, input.id)),
  }),
});
