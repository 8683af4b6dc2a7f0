import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

export const auditRouter = router({
  list: adminProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50), cursor: z.string().max(200).nullish() }).default({ limit: 50 }))
    .query(({ ctx, input }) => ctx.services.audit.list({ limit: input.limit, cursor: input.cursor ?? null })),
});
