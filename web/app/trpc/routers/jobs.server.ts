import { JOB_KINDS, JOB_STATES } from '@service/core/jobs';
import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

export const jobsRouter = router({
  /** Publish, import and sync jobs, newest first; `before` is the `nextBefore` of the previous page. */
  list: adminProcedure
    .input(
      z
        .object({
          limit: z.number().int().min(1).max(200).default(50),
          before: z.string().regex(/^[a-f0-9]{24}$/).nullish(),
          kind: z.enum(JOB_KINDS).optional(),
          state: z.enum(JOB_STATES).optional(),
        })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) => ctx.services.jobs.list(input)),
});
