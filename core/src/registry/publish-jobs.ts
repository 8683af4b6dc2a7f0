import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';
import { PUBLISH_STEPS, type Progress, type PublishStepId } from './source-operations.ts';

const PROMOTE_STEPS = PUBLISH_STEPS.filter((s) => ['resolve', 'pack', 'publish', 'record', 'audit'].includes(s.id));

export interface PublishJobView {
  id: string;
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
    const steps = (input.operation === 'publish' ? PUBLISH_STEPS : PROMOTE_STEPS).map((s) => ({ id: s.id, label: s.label, state: 'pending' }));
    const job = await PublishJob.create({ ...input, state: 'running', steps, actorId: actor.id });
    const jobId = String(job._id);
    let current: PublishStepId | null = null;
    const progress: Progress = async (step, state, detail) => {
      current = step;
      await PublishJob.updateOne({ _id: jobId, 'steps.id': step }, { $set: { 'steps.$.state': state, ...(detail ? { 'steps.$.detail': detail } : {}) } });
    };
    const done = run(progress).then(
      async (result) => {
        await PublishJob.updateOne({ _id: jobId }, { $set: { state: 'succeeded', result: { version: result.version, registryUrl: result.origin.registryUrl } } });
        return (await get(jobId))!;
      },
      async (error: unknown) => {
        const domain = toDomainError(error, deps.logger);
        const failedStep = current;
        await PublishJob.updateOne({ _id: jobId }, { $set: { state: 'failed', error: domain.toPublicJSON() } });
        if (failedStep) await PublishJob.updateOne({ _id: jobId, 'steps.id': failedStep }, { $set: { 'steps.$.state': 'failed', 'steps.$.detail': domain.toPublicJSON().message } });
        return (await get(jobId))!;
      },
    );
    return { jobId, done };
  }

  async function get(jobId: string): Promise<PublishJobView | null> {
    if (!/^[a-f0-9]{24}$/.test(jobId)) throw new DomainError('NOT_FOUND', 'No such job');
    const row = await PublishJob.findById(jobId).lean();
    if (!row) return null;
    return {
      id: String(row._id),
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
