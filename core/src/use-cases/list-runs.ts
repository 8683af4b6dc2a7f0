import { isAdmin, type Actor, type ActorNames } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ListFilter, RunStore, RunSummary } from '../runs/index.ts';

export interface ListRunsOptions extends ListFilter {
  limit?: number;
  /** The `nextBefore` of the previous page. */
  before?: string | null | undefined;
}

/** A listed run with a name people recognise for whoever started it (null when there is none). */
export type ListedRun = RunSummary & { actorName: string | null };

/**
 * The runs page: every run, newest first, each with who started it by name (an admin's email,
 * an A2A client's name). Admins only; callers over A2A list their own runs (ListTasks).
 */
export function createListRuns(deps: { runs: Pick<RunStore, 'list'>; actorNames: ActorNames }) {
  return async function listRuns(actor: Actor, options: ListRunsOptions = {}): Promise<{ items: ListedRun[]; nextBefore: string | null }> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin lists every run');
    const page = await deps.runs.list(options);
    const names = await deps.actorNames(page.items.map((run) => ({ type: run.actorType, id: run.actorId })));
    return { ...page, items: page.items.map((run) => ({ ...run, actorName: names.get(`${run.actorType}:${run.actorId}`) ?? null })) };
  };
}

export type ListRuns = ReturnType<typeof createListRuns>;
