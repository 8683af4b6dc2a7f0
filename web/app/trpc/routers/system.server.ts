import { createOverview } from '@service/core/overview';
import { FEATURE_FLAG_NAMES } from '@service/core/settings';
import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

export const systemRouter = router({
  /** Turns a runtime switch on or off (audited); applies within a second in every process. */
  setFlag: adminProcedure.input(z.object({ name: z.enum(FEATURE_FLAG_NAMES), enabled: z.boolean() })).mutation(({ ctx, input }) => ctx.services.featureFlags.set(ctx.actor, input.name, input.enabled)),
  info: adminProcedure.query(async ({ ctx }) => {
    const { config, version } = ctx.services;
    return {
      productName: config.identity.productName,
      vendorScope: config.identity.vendorScope,
      baseUrl: config.baseUrl,
      version,
      mode: config.mode,
      database: ctx.services.databaseServer,
      retention: config.retention,
      flags: await ctx.services.flags(),
      registry: await ctx.services.registry.settings.get(ctx.actor),
      agents: (await ctx.services.agentCard()).skills.map((skill) => skill.id),
      status: await createOverview(ctx.services.database.models)(),
      llm: { provider: ctx.services.llm.name, model: ctx.services.llm.model },
    };
  }),
});
