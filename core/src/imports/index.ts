import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import type { ExtensionReader, ExtensionView, ExtensionWriter } from '../extensions/index.ts';
import type { LlmMessage, LlmProvider } from '../llm/index.ts';
import type { OutboundHttp } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { assertMayAuthor } from '../registry/index.ts';
import { reviewSource, type ReviewFinding } from '../agents/index.ts';
import type { ArchiveLimits } from '../archive/index.ts';
import { draftSource, draftTurn, type DraftFields } from './chat-draft.ts';
import { createGithubClient, githubWebOrigin, parseGithubLocation, type GithubClient } from './github.ts';
import { createImportJobs, type ImportJobView, type UpdatePolicy } from './import-jobs.ts';
import { shownFiles, type ShownFile } from './stage.ts';
import { createImportSync } from './sync.ts';

export { classifyLicense, PERMISSIVE_LICENSES, type LicenseVerdict } from './license.ts';
export { createGithubClient, parseGithubLocation, type GithubClient, type GithubLocation } from './github.ts';
export { DRAFT_FIELDS, EMPTY_DRAFT, draftSource, type DraftFields, type DraftField } from './chat-draft.ts';
export { IMPORT_STEPS } from './stage.ts';
export type { ImportJobView, UpdatePolicy, ImportSource } from './import-jobs.ts';
export type { SyncOutcome } from './sync.ts';

export interface ImportsDeps {
  models: Models;
  reader: ExtensionReader;
  writer: ExtensionWriter;
  audit: AuditLog;
  logger: Logger;
  identity: { vendorScope: string };
  llm: () => LlmProvider;
  github: { apiUrl: string; token?: string | undefined } | GithubClient;
  /** The outbound HTTP client the GitHub client calls through. */
  http: OutboundHttp;
  syncIntervalMs: number;
  limits?: ArchiveLimits;
}

export interface ImportedExtensionView {
  extension: ExtensionView;
  ref: string | null;
  folder: string | null;
  commitSha: string | null;
  /** A commit the sync refused (failed review, license to acknowledge), until the ref moves on. */
  rejectedCommitSha: string | null;
  nextSyncAt: string | null;
  history: { at: string; outcome: string; trigger: string; fromVersion: string | null; toVersion: string | null; commitSha: string | null; reason: string | null }[];
}

/** Imports of extension packages from GitHub, a zip or a chat; their update policy and background sync. */
export function createImports(deps: ImportsDeps) {
  const github = 'resolveCommit' in deps.github ? deps.github : createGithubClient(deps.github, deps.http);
  const webOrigin = 'apiUrl' in deps.github ? githubWebOrigin(deps.github.apiUrl) : undefined;
  const stage = { vendorScope: deps.identity.vendorScope, reader: deps.reader, github, ...(deps.limits ? { limits: deps.limits } : {}) };
  const jobs = createImportJobs({ ...deps, stage, syncIntervalMs: deps.syncIntervalMs });
  const sync = createImportSync({ ...deps, stage, jobs, intervalMs: deps.syncIntervalMs });
  const { ExtensionImport, ImportSyncEvent } = deps.models;

  async function importedExtension(extensionId: string): Promise<ExtensionView> {
    const extension = await deps.reader.get(extensionId);
    if (!extension?.origin.importedFrom) throw new DomainError('NOT_FOUND', 'No imported extension with that id');
    return extension;
  }

  return {
    jobs: { get: jobs.get, list: jobs.list, confirm: jobs.confirm, discard: jobs.discard, failInterrupted: jobs.failInterrupted },

    async startZip(actor: Actor, input: { fileName: string; bytes: Buffer }) {
      assertMayAuthor(actor);
      return jobs.start(actor, { from: { source: 'zip', fileName: input.fileName, bytes: input.bytes }, url: input.fileName, updatePolicy: 'manual' });
    },

    async startGithub(actor: Actor, input: { url: string; ref?: string; folder?: string; updatePolicy: UpdatePolicy }) {
      assertMayAuthor(actor);
      const location = parseGithubLocation(input, webOrigin);
      return jobs.start(actor, {
        from: { source: 'github', location },
        url: location.url,
        ...(location.ref ? { ref: location.ref } : {}),
        ...(location.folder ? { folder: location.folder } : {}),
        updatePolicy: input.updatePolicy,
      });
    },

    /** One chat turn on a draft: nothing is saved; the files and the review's findings are shown. */
    async chatTurn(actor: Actor, input: { fields: DraftFields; messages: LlmMessage[] }): Promise<{ fields: DraftFields; reply: string; files: ShownFile[]; findings: ReviewFinding[] }> {
      assertMayAuthor(actor);
      const { fields, reply } = await draftTurn(deps.llm(), { vendorScope: deps.identity.vendorScope, fields: input.fields, messages: input.messages });
      const source = draftSource(fields, deps.identity.vendorScope);
      const { findings } = reviewSource(source, await deps.reader.reviewContext(deps.identity.vendorScope));
      return {
        fields,
        reply,
        files: shownFiles(source, 'flow.json', null),
        findings,
      };
    },

    async startChat(actor: Actor, input: { fields: DraftFields }) {
      assertMayAuthor(actor);
      return jobs.start(actor, { from: { source: 'chat', draft: draftSource(input.fields, deps.identity.vendorScope) }, updatePolicy: 'manual' });
    },

    /**
     * The Update button: a GitHub import is checked against its ref (nothing to do when it has
     * not moved); a zip import takes a new upload. The job stops for the admin to confirm the diff.
     */
    async startUpdate(actor: Actor, extensionId: string, input: { zip?: { fileName: string; bytes: Buffer } } = {}): Promise<{ upToDate: true; commitSha: string } | { upToDate: false; jobId: string; done: Promise<ImportJobView> }> {
      assertMayAuthor(actor);
      const extension = await importedExtension(extensionId);
      const row = await ExtensionImport.findOne({ extensionId }).lean();
      const source = extension.origin.importedFrom!.source;
      const policy = extension.origin.importedFrom!.updatePolicy;
      if (source === 'github') {
        const location = parseGithubLocation({ url: row?.url ?? extension.origin.importedFrom!.url ?? '', ref: row?.ref ?? undefined, folder: row?.folder ?? undefined });
        const commitSha = await github.resolveCommit(location);
        if (commitSha === row?.commitSha) return { upToDate: true, commitSha };
        const started = await jobs.start(actor, {
          from: { source: 'github', location, commitSha },
          url: location.url,
          ...(location.ref ? { ref: location.ref } : {}),
          ...(location.folder ? { folder: location.folder } : {}),
          updatePolicy: policy,
          target: extension,
        });
        return { upToDate: false, ...started };
      }
      if (source === 'zip') {
        if (!input.zip) throw new DomainError('VALIDATION_FAILED', 'upload the new zip file to update this extension', { details: [{ path: 'file', reason: 'required' }] });
        const started = await jobs.start(actor, { from: { source: 'zip', ...input.zip }, url: input.zip.fileName, updatePolicy: 'manual', target: extension });
        return { upToDate: false, ...started };
      }
      throw new DomainError('CONFLICT', 'an extension drafted in chat has no source to update from; draft a new version in chat instead');
    },

    async setUpdatePolicy(actor: Actor, extensionId: string, policy: UpdatePolicy): Promise<ExtensionView> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may change an update policy');
      const extension = await importedExtension(extensionId);
      const before = extension.origin.importedFrom!.updatePolicy;
      if (policy === 'auto' && extension.origin.importedFrom!.source !== 'github') {
        throw new DomainError('VALIDATION_FAILED', 'only GitHub imports can update automatically', { details: [{ path: 'updatePolicy', reason: 'auto needs a GitHub source' }] });
      }
      if (before !== policy) {
        await deps.writer.updateImportedFrom(extensionId, { updatePolicy: policy });
        await ExtensionImport.updateOne({ extensionId }, { $set: { updatePolicy: policy, nextSyncAt: new Date() } });
        deps.audit.record(actor, { action: 'import.policy', resourceType: 'extension_registry', resourceId: extensionId, details: { packageName: extension.packageName, from: before, to: policy } });
      }
      return importedExtension(extensionId);
    },

    async imported(extensionId: string): Promise<ImportedExtensionView> {
      const extension = await importedExtension(extensionId);
      const [row, events] = await Promise.all([
        ExtensionImport.findOne({ extensionId }).lean(),
        ImportSyncEvent.find({ extensionId }).sort({ createdAt: -1 }).limit(50).lean(),
      ]);
      return {
        extension,
        ref: row?.ref ?? null,
        folder: row?.folder ?? null,
        commitSha: row?.commitSha ?? null,
        rejectedCommitSha: row?.rejectedCommitSha ?? null,
        nextSyncAt: row?.updatePolicy === 'auto' && row.nextSyncAt ? row.nextSyncAt.toISOString() : null,
        history: events.map((e) => ({
          at: (e.createdAt ?? new Date(0)).toISOString(),
          outcome: e.outcome,
          trigger: e.trigger,
          fromVersion: e.fromVersion ?? null,
          toVersion: e.toVersion ?? null,
          commitSha: e.commitSha ?? null,
          reason: e.reason ?? null,
        })),
      };
    },

    /** One pass of the background sync (also what the worker loop calls). */
    syncDue: sync.runDue,
  };
}

export type Imports = ReturnType<typeof createImports>;
