import { z } from 'zod';
import { newPassword, userEmail, userId, userRole } from '../../schemas/users.ts';
import { adminProcedure, router } from '../init.server.ts';

export const usersRouter = router({
  /** A page of users in email order; `after` is the previous page's `next`. */
  list: adminProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50), after: z.string().max(320).nullish() }).default({ limit: 50 }))
    .query(({ ctx, input }) => ctx.services.accounts.list({ limit: input.limit, after: input.after ?? null })),
  /** Without a password one is generated; it is in this response only. */
  create: adminProcedure
    .input(z.object({ email: userEmail, role: userRole, password: newPassword.optional() }))
    .mutation(({ ctx, input }) => ctx.services.accounts.create(ctx.actor, { email: input.email, role: input.role, ...(input.password ? { password: input.password } : {}) })),
  setRole: adminProcedure.input(z.object({ userId, role: userRole })).mutation(({ ctx, input }) => ctx.services.accounts.setRole(ctx.actor, input.userId, input.role)),
  /** The user's sessions end at once. */
  remove: adminProcedure.input(z.object({ userId })).mutation(({ ctx, input }) => ctx.services.accounts.remove(ctx.actor, input.userId)),
});
