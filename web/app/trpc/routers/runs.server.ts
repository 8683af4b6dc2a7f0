import { RUN_STATES } from '@service/core/runs';
import { textMessage } from '@service/core/use-cases';
import { z } from 'zod';
import { runAgent, runPeerId, runText } from '../../schemas/runs.ts';
import { adminProcedure, router } from '../init.server.ts';

const runId = z.string().min(1).max(200);

export const runsRouter = router({
  /** Newest first, each with who started it by name; `before` is the `nextBefore` of the previous page. */
  list: adminProcedure
    .input(
      z
        .object({
          limit: z.number().int().min(1).max(200).default(50),
          before: runId.nullish(),
          state: z.enum(RUN_STATES).optional(),
          agent: z.string().min(1).max(214).optional(),
          caller: z.object({ type: z.string().min(1).max(20), id: z.string().min(1).max(200) }).optional(),
        })
        .default({ limit: 50 }),
    )
    .query(({ ctx, input }) => ctx.services.useCases.runs.list(ctx.actor, input)),

  /** The run and its events after `afterSeq`; the run view then follows its event stream. */
  get: adminProcedure
    .input(z.object({ id: runId, afterSeq: z.number().int().min(0).default(0) }))
    .query(({ ctx, input }) => ctx.services.useCases.runs.read(ctx.actor, input.id, input.afterSeq)),

  /** The run page: the run and the timeline of one page of its log after `afterSeq`. */
  timeline: adminProcedure
    .input(z.object({ id: runId, afterSeq: z.number().int().min(0).default(0) }))
    .query(({ ctx, input }) => ctx.services.useCases.runs.timeline(ctx.actor, input.id, input.afterSeq)),

  /** Starts a local agent, or a remote one through a registered peer; answers the local run id at once. */
  start: adminProcedure.input(z.object({ agent: runAgent, text: runText, peerId: runPeerId })).mutation(async ({ ctx, input }) => {
    const { run } = await ctx.services.useCases.runs.start(ctx.actor, { agent: input.agent, message: textMessage(input.text), peerId: input.peerId });
    return { runId: run.id };
  }),

  /** Cancels a run: one here at once; one bridged from a peer there first (CancelTask), then here. */
  cancel: adminProcedure.input(z.object({ id: runId })).mutation(async ({ ctx, input }) => {
    const run = await ctx.services.useCases.runs.cancel(ctx.actor, input.id);
    return { state: run.state };
  }),

  /** A local human answers a pause, of a local run or of a remote one bridged here: answers once the answer is taken. */
  answer: adminProcedure
    .input(z.object({ id: runId, screenId: z.string().min(1).max(200), values: z.record(z.string(), z.unknown()) }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.useCases.runs.answer(ctx.actor, input.id, { screenId: input.screenId, values: input.values });
      return { ok: true };
    }),
});
