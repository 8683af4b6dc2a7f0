import { listExamples } from '@service/core/agents';
import { PUBLISH_STEPS } from '@service/core/registry';
import { z } from 'zod';
import { exampleName, extensionId, publishDestination, versionBump } from '../../schemas/agents.ts';
import { adminProcedure, router } from '../init.server.ts';

const objectId = z.string().regex(/^[a-f0-9]{24}$/, 'not an id');

export const agentsRouter = router({
  examples: adminProcedure.query(() => listExamples()),

  /** agent_source_compile on one of the shipped example packages, moved into this instance's scope. */
  createFromExample: adminProcedure
    .input(z.object({ example: exampleName, overwrite: z.boolean().optional() }))
    .mutation(({ ctx, input }) => ctx.services.registry.compileExample(ctx.actor, input.example, { overwrite: input.overwrite })),

  /** agent_source_compile on authored files (package.json and the flow definition). */
  compile: adminProcedure
    .input(z.object({ manifest: z.unknown(), flow: z.unknown() }))
    .mutation(({ ctx, input }) => ctx.services.registry.compile(ctx.actor, { manifest: input.manifest, flow: input.flow })),

  /** agent_source_review: findings with a path and a reason each. */
  review: adminProcedure.input(z.object({ id: extensionId })).mutation(({ ctx, input }) => ctx.services.registry.review(ctx.actor, { extensionId: input.id })),

  /** agent_source_publish, started as a job whose steps the UI follows. */
  publish: adminProcedure
    .input(z.object({ id: extensionId, destination: publishDestination.default('private'), bump: versionBump.default('patch') }))
    .mutation(async ({ ctx, input }) => {
      const { jobId } = await ctx.services.registry.startPublish(ctx.actor, input.id, { destination: input.destination, bump: input.bump });
      return { jobId };
    }),

  job: adminProcedure.input(z.object({ id: objectId })).query(({ ctx, input }) => ctx.services.registry.jobs.get(input.id)),

  publishSteps: adminProcedure.query(() => PUBLISH_STEPS),

  /** The shipped examples, compiled and published to the private destination (jobs, in dependency order). */
  publishExamples: adminProcedure.mutation(({ ctx }) => ctx.services.registry.publishExamples(ctx.actor)),
});
