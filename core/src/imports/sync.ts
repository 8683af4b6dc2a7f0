import { systemActor } from '../auth/index.ts';
import { createClaims, type Models } from '../db/index.ts';
import { toDomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionWriter } from '../extensions/index.ts';
import type { Logger } from '../log/index.ts';
import { recordJobFailure } from '../telemetry/index.ts';
import type { AuditLog } from '../audit/index.ts';
import type { GithubClient } from './github.ts';
import { parseGithubLocation } from './github.ts';
import type { ImportJobs } from './import-jobs.ts';
import { licenseTextHash } from './license.ts';
import { stagePackage, type StageDeps } from './stage.ts';

export type SyncOutcome = 'unchanged' | 'updated' | 'review-failed' | 'license-changed' | 'failed';

export interface ImportSyncDeps {
  models: Models;
  reader: ExtensionReader;
  writer: ExtensionWriter;
  audit: AuditLog;
  logger: Logger;
  stage: StageDeps & { github: GithubClient };
  jobs: ImportJobs;
  intervalMs: number;
}

/**
 * The background sync of auto-updating GitHub imports. Every web process may run it: a due
 * import is claimed once per due time (an insert-once claim keyed by the import and its
 * `nextSyncAt`), then moved one interval on, so each check runs in exactly one process.
 */
export function createImportSync(deps: ImportSyncDeps) {
  const { ExtensionImport, ImportSyncEvent } = deps.models;
  const claims = createClaims(deps.models);
  const actor = systemActor('import-sync');

  /** Claims an import that fell due by `passStart`, so one pass checks each import once at most. */
  async function claimDue(passStart: Date): Promise<{ _id: unknown } | null> {
    const due = await ExtensionImport.find({ updatePolicy: 'auto', source: 'github', nextSyncAt: { $lte: passStart } }, { _id: 1, nextSyncAt: 1 }).sort({ nextSyncAt: 1 }).limit(50).lean();
    for (const row of due) {
      if (!(await claims.once(`import-sync:${String(row._id)}:${row.nextSyncAt!.getTime()}`))) continue;
      await ExtensionImport.updateOne({ _id: row._id }, { $set: { nextSyncAt: new Date(Date.now() + deps.intervalMs) } });
      return row;
    }
    return null;
  }

  /** Checks every due import once; returns what happened to each. */
  async function runDue(): Promise<{ extensionId: string; outcome: SyncOutcome }[]> {
    const results: { extensionId: string; outcome: SyncOutcome }[] = [];
    const passStart = new Date();
    for (let claimed = await claimDue(passStart); claimed; claimed = await claimDue(passStart)) {
      results.push(await syncOne(String(claimed._id)));
    }
    return results;
  }

  async function syncOne(importId: string): Promise<{ extensionId: string; outcome: SyncOutcome }> {
    const row = (await ExtensionImport.findById(importId).lean())!;
    const extensionId = String(row.extensionId);
    const extension = await deps.reader.get(extensionId);
    if (!extension) {
      // Not visible to this instance (removed, or the vendor scope changed): keep the row, skip.
      deps.logger.warn('import sync skipped an import whose extension this instance cannot read', { extensionId });
      return { extensionId, outcome: 'failed' };
    }
    const synced = () => deps.writer.updateImportedFrom(extensionId, { lastSyncedAt: new Date().toISOString() });
    /**
     * Keeps the installed version and records why. A commit refused for what it holds (review,
     * license, another package) is not downloaded again until the ref moves on; after a failure
     * of the network or of GitHub the next check tries the same commit again.
     */
    const refuse = async (outcome: Exclude<SyncOutcome, 'unchanged' | 'updated'>, reason: string, commitSha: string | undefined, rejectCommit = false) => {
      // A license to acknowledge is a decision left to the admin, not a failure.
      if (outcome !== 'license-changed') recordJobFailure('import-sync');
      if (commitSha && rejectCommit) await ExtensionImport.updateOne({ _id: importId }, { $set: { rejectedCommitSha: commitSha } });
      await ImportSyncEvent.create({ extensionId, outcome, trigger: 'auto', fromVersion: extension.version, commitSha, reason, actorId: actor.id });
      deps.audit.record(actor, { action: 'import.sync', resourceType: 'extension_registry', resourceId: extensionId, details: { packageName: extension.packageName, outcome, reason, commitSha } });
      deps.logger.warn('import sync kept the installed version', { packageName: extension.packageName, outcome, reason });
      await synced();
      return { extensionId, outcome };
    };

    const location = parseGithubLocation({ url: row.url ?? '', ref: row.ref ?? undefined, folder: row.folder ?? undefined });
    let commitSha: string;
    try {
      commitSha = await deps.stage.github.resolveCommit(location);
    } catch (error) {
      return refuse('failed', toDomainError(error, deps.logger).message, undefined);
    }
    if (commitSha === row.commitSha || commitSha === row.rejectedCommitSha) {
      await synced();
      return { extensionId, outcome: 'unchanged' };
    }

    try {
      const staged = await stagePackage(deps.stage, { source: 'github', location, commitSha }, async () => {}, extension);
      const acknowledged = extension.origin.importedFrom?.license ?? null;
      // A license that needed acknowledging is acknowledged for its words, not just its name.
      const textChanged = (row.licenseTextHash ?? null) !== licenseTextHash(staged.license.text);
      if (!staged.license.permissive && ((staged.license.spdx ?? null) !== acknowledged || textChanged)) {
        return refuse('license-changed', `the new version is licensed ${staged.license.spdx ?? 'under no declared license'}, which must be acknowledged: update it manually`, commitSha, true);
      }
      const installed = await deps.jobs.install(actor, {
        staged,
        request: { source: 'github', url: location.url, ...(row.ref ? { ref: row.ref } : {}), ...(row.folder ? { folder: row.folder } : {}), updatePolicy: row.updatePolicy, target: extension },
        trigger: 'auto',
      });
      deps.logger.info('import sync installed a new version', { packageName: installed.packageName, from: extension.version, to: installed.version, commitSha });
      return { extensionId, outcome: 'updated' };
    } catch (error) {
      const failure = toDomainError(error, deps.logger);
      const aboutTheCommit = failure.code === 'REVIEW_FAILED' || failure.code === 'CONFLICT' || failure.code === 'VALIDATION_FAILED' || failure.code === 'PAYLOAD_TOO_LARGE';
      return refuse(failure.code === 'REVIEW_FAILED' ? 'review-failed' : 'failed', failure.message, commitSha, aboutTheCommit);
    }
  }

  return { runDue };
}

export type ImportSync = ReturnType<typeof createImportSync>;
