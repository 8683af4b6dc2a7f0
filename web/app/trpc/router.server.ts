import { createCallerFactory, router } from './init.server.ts';
import { auditRouter } from './routers/audit.server.ts';
import { systemRouter } from './routers/system.server.ts';
import { agentsRouter } from './routers/agents.server.ts';
import { extensionsRouter } from './routers/extensions.server.ts';
import { registriesRouter } from './routers/registries.server.ts';
import { a2aRouter } from './routers/a2a.server.ts';
import { runsRouter } from './routers/runs.server.ts';
import { connectorsRouter } from './routers/connectors.server.ts';
import { assistantsRouter } from './routers/assistants.server.ts';
import { importsRouter } from './routers/imports.server.ts';
import { mcpRouter } from './routers/mcp.server.ts';
import { jobsRouter } from './routers/jobs.server.ts';
import { usageRouter } from './routers/usage.server.ts';
import { usersRouter } from './routers/users.server.ts';
import { accountRouter } from './routers/account.server.ts';

export const appRouter = router({
  system: systemRouter,
  audit: auditRouter,
  agents: agentsRouter,
  extensions: extensionsRouter,
  registries: registriesRouter,
  a2a: a2aRouter,
  runs: runsRouter,
  connectors: connectorsRouter,
  assistants: assistantsRouter,
  imports: importsRouter,
  usage: usageRouter,
  mcp: mcpRouter,
  jobs: jobsRouter,
  users: usersRouter,
  account: accountRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
