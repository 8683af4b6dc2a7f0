import type { RemoteBridge } from '../a2a/client/index.ts';
import { mayAccessRun, type AgentAccessActor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { RunExecutor, RunStore, RunView } from '../runs/index.ts';

/** Cancels a run by id, here or on its peer, without checking who asks (the A2A seam checked). */
export function cancelAnyRun(deps: { runs: Pick<RunStore, 'get'>; executor: Pick<RunExecutor, 'cancel'>; remote: Pick<RemoteBridge, 'cancel'> }) {
  return async (runId: string): Promise<RunView> => {
    const run = await deps.runs.get(runId);
    // A run bridged from a peer is canceled there first (CancelTask), then here.
    return run?.remote ? deps.remote.cancel(runId) : deps.executor.cancel(runId);
  };
}

/**
 * Cancelling a run, the one way: the admin UI and inbound A2A call this. A run here ends
 * canceled at once; a run on a peer is canceled there (CancelTask) and then here.
 */
export function createCancelRun(deps: { runs: Pick<RunStore, 'get'>; executor: Pick<RunExecutor, 'cancel'>; remote: Pick<RemoteBridge, 'cancel'> }) {
  const cancel = cancelAnyRun(deps);
  return async function cancelRun(actor: AgentAccessActor, runId: string): Promise<RunView> {
    const run = await deps.runs.get(runId);
    if (!run || !mayAccessRun(actor, run, 'execute')) throw new DomainError('NOT_FOUND', 'Run not found');
    return cancel(run.id);
  };
}
