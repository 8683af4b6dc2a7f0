import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const price = z.number().finite().min(0).max(1_000_000);

export const usageRouter = router({
  /** LLM usage totals per day of one dimension (agent or caller), newest day first (at most 92 days). */
  totals: adminProcedure
    .input(z.object({ dimension: z.enum(['agent', 'caller']), from: day, to: day }))
    .query(({ ctx, input }) => ctx.services.usageRollups.totals(input.dimension, input.from, input.to)),
  /** The operator's LLM price table (USD per million tokens, per model). */
  prices: adminProcedure.query(({ ctx }) => ctx.services.prices.read()),
  /** Replaces the price table (audited); prices apply to calls recorded from the next second on. */
  setPrices: adminProcedure
    .input(z.array(z.object({ model: z.string().trim().min(1).max(200), inputPerMillion: price, outputPerMillion: price })).max(200))
    .mutation(({ ctx, input }) => ctx.services.prices.set(ctx.actor, input)),
});
