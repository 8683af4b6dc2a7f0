import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import { createClaims, type Models } from '../db/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView, ExtensionWriter, ImportedFrom } from '../extensions/index.ts';
import { stepViews, trackSteps, type JobStep, type StepTracker } from '../jobs/index.ts';
import type { Logger } from '../log/index.ts';
import { recordJobFailure } from '../telemetry/index.ts';
import { licenseTextHash } from './license.ts';
import { compileStaged, IMPORT_STEPS, stagePackage, type ImportStepId, type PackageOrigin, type ShownFile, type StageDeps, type StagedPackage } from './stage.ts';

export type ImportSource = ImportedFrom['source'];

/** No step of an import stays silent this long: downloads time out after 30 s. */
const STALE_JOB_MS = 10 * 60_000;
export type UpdatePolicy = ImportedFrom['updatePolicy'];

export interface ImportJobView {
  id: string;
  source: ImportSource;
  url: string | null;
  ref: string | null;
  folder: string | null;
  updatePolicy: UpdatePolicy;
  /** Set when the job updates an imported extension. */
  targetExtensionId: string | null;
  state: 'running' | 'awaiting-confirmation' | 'succeeded' | 'failed' | 'discarded';
  steps: JobStep[];
  staged: {
    packageName: string;
    version: string;
    files: ShownFile[];
    license: { spdx: string | null; text: string | null; permissive: boolean; summary: string };
    commitSha: string | null;
    previousVersion: string | null;
    diff: string | null;
  } | null;
  error: { code: string; message: string; details?: unknown } | null;
  extensionId: string | null;
  createdAt: string;
}

/** The installed extension an update replaces, as far as installing needs it. */
type UpdateTarget = Pick<ExtensionView, 'id' | 'packageName' | 'version'>;

/** Where an import reads its package and what it records about it. */
export interface ImportRequest {
  from: PackageOrigin;
  url?: string;
  ref?: string;
  folder?: string;
  updatePolicy: UpdatePolicy;
  target?: ExtensionView;
}

export interface ImportJobsDeps {
  models: Models;
  reader: ExtensionReader;
  writer: ExtensionWriter;
  audit: AuditLog;
  logger: Logger;
  stage: StageDeps;
  syncIntervalMs: number;
}

/**
 * Import jobs: each runs the staging pipeline in the background, recording every step, then
 * installs at once (a permissive license, a new import) or waits for the admin to confirm (a
 * license to acknowledge, or a manual update's diff to accept).
 */
export function createImportJobs(deps: ImportJobsDeps) {
  const { ImportJob, ExtensionImport, ImportSyncEvent } = deps.models;
  const claims = createClaims(deps.models);

  /**
   * Marks the step in progress and the job failed, with the reason, and writes the failure to
   * the audit log once (only the write that turns the job failed does); a failure to record is logged.
   */
  async function recordFailure(actor: Actor, jobId: string, tracker: StepTracker<ImportStepId>, error: unknown): Promise<void> {
    const failure = toDomainError(error, deps.logger).toPublicJSON();
    tracker.failCurrent(failure.message);
    try {
      const { modifiedCount } = await ImportJob.updateOne({ _id: jobId, state: { $ne: 'failed' } }, { $set: { state: 'failed', error: failure, steps: tracker.steps } });
      if (modifiedCount !== 1) return;
      const step = tracker.steps.find((s) => s.state === 'failed');
      deps.audit.record(actor, { action: 'import.fail', resourceType: 'import_job', resourceId: jobId, details: { ...(step ? { step: step.id } : {}), code: failure.code, message: failure.message } });
    } catch (e) {
      deps.logger.error('could not record import failure', { error: e, jobId });
    }
  }

  async function start(actor: Actor, request: ImportRequest): Promise<{ jobId: string; done: Promise<ImportJobView> }> {
    const job = await ImportJob.create({
      source: request.from.source,
      url: request.url,
      ref: request.ref,
      folder: request.folder,
      updatePolicy: request.updatePolicy,
      targetExtensionId: request.target?.id,
      state: 'running',
      steps: IMPORT_STEPS.map((s) => ({ ...s, state: 'pending' })),
      actorId: actor.id,
    });
    const jobId = String(job._id);
    const tracker = trackSteps<ImportStepId>(IMPORT_STEPS, (steps) => ImportJob.updateOne({ _id: jobId }, { $set: { steps } }), undefined, () => recordJobFailure('import'));
    const done = (async () => {
      try {
        const staged = await stagePackage(deps.stage, request.from, (step, state, detail) => tracker.mark(step, state, detail), request.target);
        // A chat draft is the admin's own text: its license is the one its author chose while
        // drafting (none named: all rights reserved), never one to acknowledge.
        const ownDraft = request.from.source === 'chat';
        if (ownDraft) await tracker.mark('license', 'done', `${staged.license.spdx ?? 'UNLICENSED (all rights reserved)'}: chosen by its author, ${actor.type === 'ui' ? actor.email : actor.id}, when drafting`);
        else if (staged.license.permissive) await tracker.mark('license', 'done', staged.license.summary);
        else await tracker.mark('license', 'waiting', staged.license.summary);
        if ((!staged.license.permissive && !ownDraft) || request.target) {
          await tracker.mark('install', 'waiting', request.target ? `confirm to update ${staged.previousVersion} → ${staged.version}` : 'waiting for the license acknowledgement');
          await ImportJob.updateOne({ _id: jobId }, { $set: { state: 'awaiting-confirmation', staged, steps: tracker.steps } });
        } else {
          await tracker.mark('install', 'running');
          const installed = await install(actor, { staged, request: { ...request, source: request.from.source }, trigger: 'manual' });
          await tracker.mark('install', 'done', `${installed.packageName}@${installed.version}`);
          await ImportJob.updateOne({ _id: jobId }, { $set: { state: 'succeeded', staged, extensionId: installed.id, steps: tracker.steps } });
        }
      } catch (error) {
        await recordFailure(actor, jobId, tracker, error);
      }
      return (await get(jobId))!;
    })();
    return { jobId, done };
  }

  /**
   * Installs a staged package as an imported extension: the record with its origin, the sync
   * row, the history entry and the audit row. Used by jobs and by the background sync.
   */
  async function install(actor: Actor, input: { staged: StagedPackage; request: Omit<ImportRequest, 'from' | 'target'> & { source: ImportSource; target?: UpdateTarget }; trigger: 'manual' | 'auto' }): Promise<ExtensionView> {
    const { staged, request } = input;
    const now = new Date();
    // An update applies to the version it was prepared against, under the policy in force now.
    const current = request.target ? await deps.reader.get(request.target.id) : null;
    if (request.target) {
      if (!current) throw new DomainError('NOT_FOUND', `${request.target.packageName} was removed while this update waited`);
      const preparedAgainst = staged.previousVersion ?? request.target.version;
      if (current.version !== preparedAgainst) {
        throw new DomainError('CONFLICT', `${current.packageName} is at ${current.version} now, not ${preparedAgainst} as when this update was prepared; check for updates again`);
      }
    }
    const updatePolicy = current?.origin.importedFrom?.updatePolicy ?? request.updatePolicy;
    const importedFrom: ImportedFrom = {
      source: request.source,
      ...(request.url ? { url: request.url } : {}),
      ...(staged.license.spdx ? { license: staged.license.spdx } : {}),
      // Permissive licenses are recorded as acknowledged; others only get here once acknowledged.
      licenseAcknowledged: true,
      updatePolicy,
      lastSyncedAt: now.toISOString(),
    };
    const installed = await deps.writer.install(
      {
        source: staged.source,
        compiled: compileStaged(staged, current?.compiled),
        origin: { packageName: staged.packageName, version: staged.version, destinationId: null, scope: deps.stage.vendorScope, visibility: 'private', registryUrl: '', importedFrom },
      },
      // A new import never replaces what another import, a pull or an author recorded meanwhile.
      { onlyNew: !request.target },
    );
    await ExtensionImport.findOneAndUpdate(
      { extensionId: installed.id },
      {
        $set: {
          packageName: staged.packageName,
          source: request.source,
          url: request.url,
          ref: request.ref,
          folder: request.folder,
          commitSha: staged.commitSha,
          licenseTextHash: licenseTextHash(staged.license.text),
          rejectedCommitSha: null,
          updatePolicy,
          nextSyncAt: new Date(now.getTime() + deps.syncIntervalMs),
        },
      },
      { upsert: true, returnDocument: 'after' },
    );
    await ImportSyncEvent.create({
      extensionId: installed.id,
      outcome: request.target ? 'updated' : 'installed',
      trigger: input.trigger,
      ...(request.target ? { fromVersion: request.target.version } : {}),
      toVersion: staged.version,
      commitSha: staged.commitSha,
      actorId: actor.id,
    });
    deps.audit.record(actor, {
      action: input.trigger === 'auto' ? 'import.sync' : request.target ? 'import.update' : 'import',
      resourceType: 'extension_registry',
      resourceId: installed.id,
      details: {
        packageName: staged.packageName,
        version: staged.version,
        ...(request.target ? { fromVersion: request.target.version } : {}),
        source: request.source,
        ...(request.url ? { url: request.url } : {}),
        ...(staged.commitSha ? { commitSha: staged.commitSha } : {}),
        license: staged.license.spdx,
      },
    });
    return installed;
  }

  /** The admin accepts a staged import: acknowledges its license when it needs it, then it installs. */
  async function confirm(actor: Actor, jobId: string, options: { acknowledgeLicense: boolean }): Promise<ImportJobView> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may confirm an import');
    const waiting = await get(jobId);
    if (!waiting) throw new DomainError('NOT_FOUND', 'No such import');
    if (waiting.state !== 'awaiting-confirmation' || !waiting.staged) throw new DomainError('CONFLICT', `this import is ${waiting.state}, not waiting for confirmation`);
    const needsAcknowledgement = !waiting.staged.license.permissive;
    if (needsAcknowledgement && !options.acknowledgeLicense) {
      throw new DomainError('VALIDATION_FAILED', `${waiting.staged.packageName} is licensed ${waiting.staged.license.spdx ?? 'under no declared license'}: acknowledge the license to install it`, {
        details: [{ path: 'acknowledgeLicense', reason: 'must be true for a license that is not permissive' }],
      });
    }
    // One decision per job (confirm or discard), however many arrive, in however many processes.
    if (!(await claims.once(`import-decision:${jobId}`))) throw new DomainError('CONFLICT', 'this import was already confirmed or discarded');
    await ImportJob.updateOne({ _id: jobId }, { $set: { state: 'running' } });
    const row = await ImportJob.findById(jobId).lean();
    const staged = row!.staged as StagedPackage;
    const tracker = trackSteps<ImportStepId>(IMPORT_STEPS, (steps) => ImportJob.updateOne({ _id: jobId }, { $set: { steps } }), stepViews(row!.steps), () => recordJobFailure('import'));
    try {
      if (needsAcknowledgement) {
        deps.audit.record(actor, {
          action: 'import.license.acknowledge',
          resourceType: 'extension_registry',
          details: { packageName: staged.packageName, version: staged.version, license: staged.license.spdx, jobId },
        });
        await tracker.mark('license', 'done', `${staged.license.spdx ?? 'no license'} acknowledged by ${actor.type === 'ui' ? actor.email : actor.id}`);
      }
      // install reads the extension afresh and refuses if it is gone or moved past this update's base.
      const target = row!.targetExtensionId ? { id: String(row!.targetExtensionId), packageName: staged.packageName, version: staged.previousVersion ?? '' } : undefined;
      await tracker.mark('install', 'running');
      const installed = await install(actor, {
        staged,
        request: {
          source: row!.source,
          ...(row!.url ? { url: row!.url } : {}),
          ...(row!.ref ? { ref: row!.ref } : {}),
          ...(row!.folder ? { folder: row!.folder } : {}),
          updatePolicy: row!.updatePolicy,
          ...(target ? { target } : {}),
        },
        trigger: 'manual',
      });
      await tracker.mark('install', 'done', `${installed.packageName}@${installed.version}`);
      await ImportJob.updateOne({ _id: jobId }, { $set: { state: 'succeeded', extensionId: installed.id, steps: tracker.steps } });
    } catch (error) {
      await recordFailure(actor, jobId, tracker, error);
    }
    return (await get(jobId))!;
  }

  async function discard(actor: Actor, jobId: string): Promise<ImportJobView> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may discard an import');
    const waiting = await get(jobId);
    if (waiting?.state !== 'awaiting-confirmation' || !(await claims.once(`import-decision:${jobId}`))) {
      throw new DomainError('CONFLICT', 'only an import waiting for confirmation can be discarded');
    }
    await ImportJob.updateOne({ _id: jobId }, { $set: { state: 'discarded' } });
    return (await get(jobId))!;
  }

  /**
   * Jobs run in the process that started them; one that stopped moving for `staleMs` died with
   * its process and is marked failed, so its page ends and it can be started again.
   */
  async function failInterrupted(staleMs = STALE_JOB_MS): Promise<number> {
    const result = await ImportJob.updateMany(
      { state: 'running', updatedAt: { $lt: new Date(Date.now() - staleMs) } },
      { $set: { state: 'failed', error: { code: 'INTERNAL', message: 'The import was interrupted (the service stopped while it ran); start it again' } } },
    );
    return result.modifiedCount;
  }

  async function get(jobId: string): Promise<ImportJobView | null> {
    const row = await ImportJob.findById(validId(jobId)).lean();
    return row ? toView(row) : null;
  }

  async function list(limit = 20): Promise<ImportJobView[]> {
    // ObjectIds start with their creation second: newest first is the primary key read backwards.
    const rows = await ImportJob.find({}).sort({ _id: -1 }).limit(limit).lean();
    return rows.map(toView);
  }

  return { start, install, confirm, discard, get, list, failInterrupted };
}

export type ImportJobs = ReturnType<typeof createImportJobs>;

function validId(jobId: string): string {
  if (!/^[a-f0-9]{24}$/.test(jobId)) throw new DomainError('NOT_FOUND', 'No such import');
  return jobId;
}

function toView(row: Record<string, unknown>): ImportJobView {
  const staged = row.staged as StagedPackage | undefined;
  const str = (value: unknown) => (value === undefined || value === null ? null : String(value));
  return {
    id: String(row._id),
    source: row.source as ImportSource,
    url: str(row.url),
    ref: str(row.ref),
    folder: str(row.folder),
    updatePolicy: row.updatePolicy as UpdatePolicy,
    targetExtensionId: str(row.targetExtensionId),
    state: row.state as ImportJobView['state'],
    steps: stepViews(row.steps as JobStep[]),
    staged: staged
      ? {
          packageName: staged.packageName,
          version: staged.version,
          files: staged.files,
          license: staged.license,
          commitSha: staged.commitSha ?? null,
          previousVersion: staged.previousVersion ?? null,
          diff: staged.diff ?? null,
        }
      : null,
    error: (row.error as ImportJobView['error']) ?? null,
    extensionId: str(row.extensionId),
    createdAt: ((row.createdAt as Date | undefined) ?? new Date(0)).toISOString(),
  };
}
