import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

/** MCP apps an admin connected on the consent page (OAuth authorization code grants). */
export const mcpRouter = router({
  connections: router({
    list: adminProcedure.query(({ ctx }) => ctx.services.oauth.consents.list(ctx.actor)),
    /** Its refresh tokens stop at once, its access tokens within a second. */
    revoke: adminProcedure.input(z.object({ grantId: z.string().min(1).max(100) })).mutation(({ ctx, input }) => ctx.services.oauth.consents.revoke(ctx.actor, input.grantId)),
  }),
});
