import { assertAgentAccess, createActorNames } from '@service/core/auth';
import { DomainError } from '@service/core/errors';
import { isVisible, RUN_STATES } from '@service/core/runs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { runAgent, runPeerId, runText } from '../../forms/start-run.ts';
import { adminProcedure, router } from '../init.server.ts';

const runId = z.string().min(1).max(200);

export const runsRouter = router({
  /** Newest first; `before` is the `nextBefore` of the previous page. */
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
    .query(async ({ ctx, input }) => {
      const page = await ctx.services.runs.list(input);
      const names = await createActorNames(ctx.services.database.models)(page.items.map((run) => ({ type: run.actorType, id: run.actorId })));
      return { ...page, items: page.items.map((run) => ({ ...run, actorName: names.get(`${run.actorType}:${run.actorId}`) ?? null })) };
    }),

  /** The run and its events after `afterSeq` (the live view polls with the last seq it has). */
  get: adminProcedure.input(z.object({ id: runId, afterSeq: z.number().int().min(0).default(0) })).query(async ({ ctx, input }) => {
    const run = await ctx.services.runs.get(input.id);
    if (!run) throw new DomainError('NOT_FOUND', 'Run not found');
    const { progress: _progress, tail: _tail, ...shown } = run;
    const events = (await ctx.services.eventLog.readAfter(run.id, input.afterSeq)).flatMap(({ seq, event }) => (isVisible(event) ? [{ seq, event }] : []));
    return { run: shown, remote: ctx.services.remote.isRemote(run), events };
  }),

  /** Starts a local agent, or a remote one through a registered peer; answers the local run id at once. */
  start: adminProcedure
    .input(z.object({ agent: runAgent, text: runText, peerId: runPeerId }))
    .mutation(async ({ ctx, input }) => {
      if (input.peerId) {
        const { run, done } = await ctx.services.remote.start(ctx.actor, { peerId: input.peerId, skillId: input.agent, text: input.text });
        done.catch(() => undefined);
        return { runId: run.id };
      }
      assertAgentAccess(ctx.actor, input.agent, 'execute');
      if (!(await ctx.services.agentCard()).skills.some((s) => s.id === input.agent)) throw new DomainError('NOT_FOUND', `No agent ${input.agent} on this host`);
      const { run } = await ctx.services.runs.create(ctx.actor, {
        agent: input.agent,
        message: { id: randomUUID(), role: 'user', parts: [{ type: 'text', text: input.text }] },
      });
      void ctx.services.executor.start(run.id);
      return { runId: run.id };
    }),

  /** A local human answers an interrupt: of a local run, or of a remote one bridged here. */
  answer: adminProcedure
    .input(z.object({ id: runId, screenId: z.string().min(1).max(200), values: z.record(z.string(), z.unknown()) }))
    .mutation(async ({ ctx, input }) => {
      const run = await ctx.services.runs.get(input.id);
      if (!run) throw new DomainError('NOT_FOUND', 'Run not found');
      if (ctx.services.remote.isRemote(run)) {
        // The rest of the remote run continues in the background and the run view follows it;
        // a rejected answer (validated remotely) fails fast, so wait briefly to show it here.
        const pending = ctx.services.remote.resume(run.id, { screenId: input.screenId, values: input.values });
        pending.catch(() => undefined);
        await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 1_500))]);
        return { ok: true };
      }
      await ctx.services.executor.resume(run.id, { screenId: input.screenId, values: input.values });
      return { ok: true };
    }),
});
