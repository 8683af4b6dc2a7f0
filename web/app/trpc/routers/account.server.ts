import { z } from 'zod';
import { currentPassword, newPassword } from '../../schemas/users.ts';
import { adminProcedure, router } from '../init.server.ts';

/** The signed-in user's own account; "this session" is the one whose cookie made the request. */
export const accountRouter = router({
  sessions: adminProcedure.query(({ ctx }) => ctx.services.accounts.sessions(ctx.actor, ctx.sessionId ?? null)),
  /** Checked like a sign-in (throttled per account and address); every other session of the user ends, this one stays. */
  changePassword: adminProcedure
    .input(z.object({ currentPassword, newPassword }))
    .mutation(({ ctx, input }) => ctx.services.accounts.changePassword(ctx.actor, { ...input, sessionId: ctx.sessionId ?? null, ...(ctx.clientAddress ? { address: ctx.clientAddress } : {}) })),
  signOutOthers: adminProcedure.mutation(async ({ ctx }) => ({ endedSessions: await ctx.services.accounts.signOutOthers(ctx.actor, ctx.sessionId ?? null) })),
});
