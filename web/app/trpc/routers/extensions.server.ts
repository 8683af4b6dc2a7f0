import { z } from 'zod';
import { extensionId } from '../../schemas/agents.ts';
import { packageName, searchText } from '../../schemas/marketplace.ts';
import { adminProcedure, router } from '../init.server.ts';

const destination = z.enum(['public', 'private']);

export const extensionsRouter = router({
  /** The marketplace screen: every visible extension record (the visibility filter applies). */
  marketplace: adminProcedure
    .input(z.object({ text: searchText, after: z.string().max(300).optional(), limit: z.number().int().min(1).max(200).default(50) }).default({ limit: 50 }))
    .query(({ ctx, input }) => ctx.services.extensions.marketplace(input)),

  get: adminProcedure.input(z.object({ id: extensionId })).query(({ ctx, input }) => ctx.services.extensions.get(input.id)),

  /** Packages a registry destination offers for install. */
  registryListing: adminProcedure
    .input(z.object({ from: destination, text: searchText.default('') }))
    .query(({ ctx, input }) => ctx.services.registry.listRegistry(ctx.actor, input.from, input.text)),

  install: adminProcedure
    .input(z.object({ packageName, version: z.string().max(100).optional(), from: destination }))
    .mutation(({ ctx, input }) => ctx.services.registry.pull(ctx.actor, input)),

  /** Promote to public (one way). Refusals are immediate; the republish runs as a job. */
  promote: adminProcedure.input(z.object({ id: extensionId })).mutation(async ({ ctx, input }) => {
    const { jobId } = await ctx.services.registry.startPromote(ctx.actor, input.id);
    return { jobId };
  }),
});
