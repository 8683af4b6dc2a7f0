import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

const objectId = z.string().regex(/^[a-f0-9]{24}$/, 'not an extension id');
const packageName = z.string().regex(/^@[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/, 'must be @scope/name');
const destination = z.enum(['public', 'private']);

export const extensionsRouter = router({
  /** The marketplace screen: every visible extension record (the visibility filter applies). */
  marketplace: adminProcedure
    .input(z.object({ text: z.string().max(200).optional(), after: z.string().max(300).optional(), limit: z.number().int().min(1).max(200).default(50) }).default({ limit: 50 }))
    .query(({ ctx, input }) => ctx.services.extensions.marketplace(input)),

  get: adminProcedure.input(z.object({ id: objectId })).query(({ ctx, input }) => ctx.services.extensions.get(input.id)),

  /** Packages a registry destination offers for install. */
  registryListing: adminProcedure
    .input(z.object({ from: destination, text: z.string().max(200).default('') }))
    .query(({ ctx, input }) => ctx.services.registry.listRegistry(ctx.actor, input.from, input.text)),

  install: adminProcedure
    .input(z.object({ packageName, version: z.string().max(100).optional(), from: destination }))
    .mutation(({ ctx, input }) => ctx.services.registry.pull(ctx.actor, input)),

  /** Promote to public (one way). Refusals are immediate; the republish runs as a job. */
  promote: adminProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => {
    const { jobId } = await ctx.services.registry.startPromote(ctx.actor, input.id);
    return { jobId };
  }),
});
