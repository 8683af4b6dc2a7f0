import { adminProcedure, router } from '../init.server.ts';

export const systemRouter = router({
  info: adminProcedure.query(({ ctx }) => {
    const { config, version } = ctx.services;
    return {
      productName: config.identity.productName,
      vendorScope: config.identity.vendorScope,
      baseUrl: config.baseUrl,
      version,
      mode: config.mode,
      database: ctx.services.databaseServer,
      retention: config.retention,
      flags: ctx.services.flags(),
      llm: { provider: ctx.services.llm.name, model: ctx.services.llm.model },
    };
  }),
});
