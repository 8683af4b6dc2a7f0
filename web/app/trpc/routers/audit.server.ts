import { z } from 'zod';
import { auditActionFilter, auditActorFilter, auditCursor } from '../../schemas/audit.ts';
import { adminProcedure, router } from '../init.server.ts';

export const auditRouter = router({
  list: adminProcedure
    .input(
      z
        .object({
          limit: z.number().int().min(1).max(200).default(50),
          cursor: auditCursor.nullish(),
          actor: auditActorFilter.optional(),
          action: auditActionFilter.optional(),
          from: z.coerce.date().optional(),
          to: z.coerce.date().optional(),
        })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) =>
      ctx.services.audit.list({
        limit: input.limit,
        cursor: input.cursor ?? null,
        filter: { ...(input.actor ? { actor: input.actor } : {}), ...(input.action ? { action: input.action } : {}), ...(input.from ? { from: input.from } : {}), ...(input.to ? { to: input.to } : {}) },
      }),
    ),
});
