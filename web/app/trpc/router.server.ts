import { createCallerFactory, router } from './init.server.ts';
import { auditRouter } from './routers/audit.server.ts';
import { systemRouter } from './routers/system.server.ts';
import { agentsRouter } from './routers/agents.server.ts';
import { extensionsRouter } from './routers/extensions.server.ts';
import { registriesRouter } from './routers/registries.server.ts';

export const appRouter = router({
  system: systemRouter,
  audit: auditRouter,
  agents: agentsRouter,
  extensions: extensionsRouter,
  registries: registriesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
