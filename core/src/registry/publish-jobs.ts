import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { PUBLISH_STEPS, type Progress, type PublishStepId } from './source-operations.ts';

const PROMOTE_STEPS = PUBLISH_STEPS.filter((s) => ['resolve', 'pack', 'publish', 'record', 'audit'].includes(s.id));

export interface PublishJobView {
  id: string;
  extensionId: string;
  packageName: string;
  operation: 'publish' | 'promote';
  destination: 'public' | 'private';
  state: 'running' | 'succeeded' | 'failed';
  steps: { id: string; label: string; state: 'pending' | 'running' | 'done' | 'failed'; detail?: string }[];
  error: { code: string; message: string; details?: unknown } | null;
  result: { version: string; registryUrl: string } | null;
}

/**
 * Runs a publish or promote in the background and keeps its progress in MongoDB, so the UI can
 * show each step live (and after a reload) and a failure names the step and the reason.
 */
export function createPublishJobs(deps: { models: Models; logger: Logger }) {
  const { PublishJob } = deps.models;

  async function start(
    actor: Actor,
    input: { extensionId: string; packageName: string; operation: 'publish' | 'promote'; destination: 'public' | 'private' },
    run: (progress: Progress) => Promise<{ version: string; origin: { registryUrl: string } }>,
  ): Promise<{ jobId: string; done: Promise<PublishJobView> }> {
    const steps: PublishJobView['steps'] = (input.operation === 'publish' ? PUBLISH_STEPS : PROMOTE_STEPS).map((s) => ({ id: s.id, label: s.label, state: 'pending' }));
    const job = await PublishJob.create({ ...input, state: 'running', steps, actorId: actor.id });
    const jobId = String(job._id);
    // One writer per job, in order: the step list is kept here and written whole (FerretDB has
    // no positional `$` updates).
    let current: PublishStepId | null = null;
    const save = (update: Record<string, unknown>) => PublishJob.updateOne({ _id: jobId }, { $set: { steps, ...update } });
    const progress: Progress = async (step, state, detail) => {
      current = step;
      const entry = steps.find((s) => s.id === step);
      if (entry) Object.assign(entry, { state, ...(detail ? { detail } : {}) });
      await save({});
    };
    const done = run(progress)
      .then(
        (result) => save({ state: 'succeeded', result: { version: result.version, registryUrl: result.origin.registryUrl } }),
        (error: unknown) => {
          const failure = toDomainError(error, deps.logger).toPublicJSON();
          const entry = steps.find((s) => s.id === current);
          if (entry) Object.assign(entry, { state: 'failed', detail: failure.message });
          return save({ state: 'failed', error: failure });
        },
      )
      .catch((error: unknown) => deps.logger.error('could not record publish job progress', { error, jobId }))
      .then(async () => (await get(jobId))!);
    return { jobId, done };
  }

  async function get(jobId: string): Promise<PublishJobView | null> {
    if (!/^[a-f0-9]{24}$/.test(jobId)) throw new DomainError('NOT_FOUND', 'No such job');
    const row = await PublishJob.findById(jobId).lean();
    if (!row) return null;
    return {
      id: String(row._id),
      extensionId: String(row.extensionId),
      packageName: row.packageName,
      operation: row.operation,
      destination: row.destination,
      state: row.state,
      steps: row.steps.map((s) => ({ id: s.id, label: s.label, state: s.state, ...(s.detail ? { detail: s.detail } : {}) })),
      error: (row.error as PublishJobView['error']) ?? null,
      result: (row.result as PublishJobView['result']) ?? null,
    };
  }

  return { start, get };
}

export type PublishJobs = ReturnType<typeof createPublishJobs>;
