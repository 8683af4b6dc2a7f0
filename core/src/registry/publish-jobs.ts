import type { AuditLog } from '../audit/index.ts';
import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';
import { stepViews, trackSteps, type JobStep, type StepTracker } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { recordJobFailure } from '../telemetry/index.ts';
import { PUBLISH_STEPS, type Progress, type PublishStepId } from './source-operations.ts';

const PROMOTE_STEPS = PUBLISH_STEPS.filter((s) => ['resolve', 'pack', 'publish', 'record', 'audit'].includes(s.id));

export interface PublishJobView {
  id: string;
  extensionId: string;
  packageName: string;
  operation: 'publish' | 'promote';
  destination: 'public' | 'private';
  state: 'running' | 'succeeded' | 'failed';
  steps: JobStep[];
  error: { code: string; message: string; details?: unknown } | null;
  result: { version: string; registryUrl: string } | null;
}

/**
 * Runs a publish or promote in the background and keeps its progress in MongoDB, so the UI can
 * show each step live (and after a reload) and a failure names the step and the reason.
 */
export function createPublishJobs(deps: { models: Models; logger: Logger; audit: AuditLog }) {
  const { PublishJob } = deps.models;

  async function start(
    actor: Actor,
    input: { extensionId: string; packageName: string; operation: 'publish' | 'promote'; destination: 'public' | 'private' },
    run: (progress: Progress) => Promise<{ version: string; origin: { registryUrl: string } }>,
  ): Promise<{ jobId: string; done: Promise<PublishJobView> }> {
    const definitions = input.operation === 'publish' ? PUBLISH_STEPS : PROMOTE_STEPS;
    const job = await PublishJob.create({ ...input, state: 'running', steps: definitions.map((s) => ({ ...s, state: 'pending' })), actorId: actor.id });
    const jobId = String(job._id);
    const tracker: StepTracker<PublishStepId> = trackSteps<PublishStepId>(definitions, () => save({}), undefined, () => recordJobFailure(input.operation));
    const save = async (update: Record<string, unknown>): Promise<void> => {
      await PublishJob.updateOne({ _id: jobId }, { $set: { steps: tracker.steps, ...update } });
    };
    const progress: Progress = (step, state, detail) => tracker.mark(step, state, detail);
    const done = run(progress)
      .then(
        (result) => save({ state: 'succeeded', result: { version: result.version, registryUrl: result.origin.registryUrl } }),
        async (error: unknown) => {
          const failure = toDomainError(error, deps.logger).toPublicJSON();
          tracker.failCurrent(failure.message);
          await save({ state: 'failed', error: failure });
          // A job fails once: this settles its only run.
          const step = tracker.steps.find((s) => s.state === 'failed');
          deps.audit.record(actor, {
            action: `${input.operation}.fail`,
            resourceType: 'publish_job',
            resourceId: jobId,
            details: { packageName: input.packageName, destination: input.destination, ...(step ? { step: step.id } : {}), code: failure.code, message: failure.message },
          });
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
      steps: stepViews(row.steps),
      error: (row.error as PublishJobView['error']) ?? null,
      result: (row.result as PublishJobView['result']) ?? null,
    };
  }

  return { start, get };
}

export type PublishJobs = ReturnType<typeof createPublishJobs>;
