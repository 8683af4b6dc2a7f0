import { FEATURE_FLAG_NAMES } from '@service/core/settings';
import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

export const systemRouter = router({
  /** Turns a runtime switch on or off (audited); applies within a second in every process. */
  setFlag: adminProcedure.input(z.object({ name: z.enum(FEATURE_FLAG_NAMES), enabled: z.boolean() })).mutation(({ ctx, input }) => ctx.services.featureFlags.set(ctx.actor, input.name, input.enabled)),
  /** The Overview: identity, setup and live counts. */
  info: adminProcedure.query(({ ctx }) => ctx.services.useCases.systemInfo(ctx.actor)),
});
