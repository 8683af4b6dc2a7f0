import type { RemoteBridge } from '../a2a/client/index.ts';
import { mayAccessRun, type AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { Answer, RunExecutor, RunMessage, RunStore } from '../runs/index.ts';

export interface AnswerPauseDeps {
  runs: Pick<RunStore, 'get'>;
  executor: Pick<RunExecutor, 'resume'>;
  remote: Pick<RemoteBridge, 'answer'>;
}

/**
 * Answering a paused run, the one way: the admin UI, inbound A2A and the AG-UI resume call this.
 * Resolves once the answer is taken, with its sequence number in the run's log: for a run here,
 * once it is stored (the run goes on in this process); for a run on a peer, once the peer took
 * it (a refusal rejects, and the run waits for a better answer). What follows is on the run's
 * event stream. Of several answers to one pause exactly one is taken; the others are CONFLICT.
 * `message` is the caller's A2A message carrying the answer, stored with it for a run here.
 */
export function createAnswerPause(deps: AnswerPauseDeps) {
  return async function answerPause(actor: AgentAccessActor, runId: string, answer: Answer, message?: RunMessage): Promise<{ answerSeq: number }> {
    const run = await deps.runs.get(runId);
    if (!run || !mayAccessRun(actor, run, 'execute')) throw new DomainError('NOT_FOUND', 'Run not found');
    // Who answered is stored with the answer, for the run's timeline.
    const by = { type: actor.type, id: actor.id };
    if (run.remote) {
      const { answerSeq, done } = await deps.remote.answer(run.id, answer, by);
      // How the rest went (completed, failed, paused again) is on the run.
      done.catch(() => undefined);
      return { answerSeq };
    }
    return { answerSeq: await deps.executor.resume(run.id, answer, message, by) };
  };
}

export type AnswerPause = ReturnType<typeof createAnswerPause>;
