import { z } from 'zod';
import { allowedOrigin, assistantAgent, historyTurns } from '../../schemas/assistants.ts';
import { instanceId } from '../../schemas/connectors.ts';
import { adminProcedure, router } from '../init.server.ts';

const connector = z.enum(['cms_a', 'cms_b']);
const target = z.object({ connector, instanceId });

export const assistantsRouter = router({
  /** Widget settings of every instance of a connector; the key only as "set" and its prefix. */
  list: adminProcedure.input(z.object({ connector })).query(({ ctx, input }) => ctx.services.useCases.widgetSettings(ctx.actor, input.connector)),
  /** A new key, in this response only. */
  rotateKey: adminProcedure.input(target).mutation(({ ctx, input }) => ctx.services.widgetKeys.rotate(ctx.actor, input.connector, input.instanceId)),
  revokeKey: adminProcedure.input(target).mutation(({ ctx, input }) => ctx.services.widgetKeys.revoke(ctx.actor, input.connector, input.instanceId)),
  configure: adminProcedure
    .input(target.extend({ allowedOrigins: z.array(allowedOrigin).max(50), historyTurns, assistantAgent: assistantAgent.nullable() }))
    .mutation(({ ctx, input }) => ctx.services.widgetKeys.configure(ctx.actor, input.connector, input.instanceId, input)),
});
