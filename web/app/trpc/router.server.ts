import { createCallerFactory, router } from './init.server.ts';
import { auditRouter } from './routers/audit.server.ts';
import { systemRouter } from './routers/system.server.ts';

export const appRouter = router({
  system: systemRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
