import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageFiles, startGithubDouble, type GithubDouble } from '../helpers/github-double.ts';
import { adminOf } from '../helpers/instances.ts';

const t = useTestDatabase();
const admin = adminOf('@acme');
let github: GithubDouble;
let services: ReturnType<typeof testServices>;
const SYNC_INTERVAL_MS = 200;

beforeAll(async () => {
  github = await startGithubDouble();
  services = testServices(t.db, { SERVICE_GITHUB_API_URL: github.apiUrl, SERVICE_IMPORT_SYNC_INTERVAL_MS: String(SYNC_INTERVAL_MS) });
});
afterAll(() => github?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('importing from GitHub', () => {
  it('installs from a sub-folder at a branch, then the auto sync follows the branch; a failing review keeps the old version', async () => {
    const first = github.commit('acme-labs', 'agents', packageFiles({ name: '@acme/faq', version: '1.0.0', folder: 'packages/faq' }));
    github.setRef('acme-labs', 'agents', 'main', first);

    const { done } = await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/agents/tree/main/packages/faq`, updatePolicy: 'auto' });
    const job = await done;
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect(job.steps.map((s) => `${s.label}: ${s.state}`)).toEqual(['Download: done', 'Unpack: done', 'Compile: done', 'Review: done', 'License: done', 'Install: done']);
    const installed = (await services.extensions.get(job.extensionId!))!;
    expect(installed.origin).toMatchObject({
      packageName: '@acme/faq',
      version: '1.0.0',
      scope: '@acme',
      visibility: 'private',
      destinationId: null,
      importedFrom: { source: 'github', url: `${github.apiUrl}/acme-labs/agents`, license: 'MIT', licenseAcknowledged: true, updatePolicy: 'auto' },
    });
    const firstSyncedAt = installed.origin.importedFrom!.lastSyncedAt!;
    // The archive was fetched for the exact commit the ref resolved to.
    expect(github.requests.map((r) => r.path)).toContain(`/repos/acme-labs/agents/tarball/${first}`);

    // Nothing moved: the sync checks, downloads nothing and only advances lastSyncedAt.
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await services.imports.syncDue()).toEqual([{ extensionId: installed.id, outcome: 'unchanged' }]);
    const checked = (await services.extensions.get(installed.id))!;
    expect(checked.origin.importedFrom!.lastSyncedAt! > firstSyncedAt).toBe(true);
    expect(github.requests.filter((r) => r.path.includes('/tarball/'))).toHaveLength(1);

    // The branch moves: the next due sync re-imports.
    const second = github.commit('acme-labs', 'agents', packageFiles({ name: '@acme/faq', version: '1.1.0', folder: 'packages/faq' }));
    github.setRef('acme-labs', 'agents', 'main', second);
    expect(await services.imports.syncDue()).toEqual([]); // not due yet: checked a moment ago
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await services.imports.syncDue()).toEqual([{ extensionId: installed.id, outcome: 'updated' }]);
    const updated = (await services.extensions.get(installed.id))!;
    expect(updated.version).toBe('1.1.0');
    expect(updated.compiled.card.name).toBe('FAQ 1.1.0');
    expect(updated.compiled.supportedVersions).toEqual(expect.arrayContaining(['1.0.0', '1.1.0']));
    expect(updated.origin.importedFrom!.lastSyncedAt! > checked.origin.importedFrom!.lastSyncedAt!).toBe(true);

    // The branch moves to a version whose review fails: the old version stays, and why is recorded.
    const broken = github.commit('acme-labs', 'agents', packageFiles({
      name: '@acme/faq',
      version: '1.2.0',
      folder: 'packages/faq',
      flow: { id: 'faq', name: 'FAQ', description: 'Calls an undeclared agent.', type: 'flow', instructions: 'x', steps: [{ kind: 'call', id: 'ask', agent: '@acme/elsewhere' }] },
    }));
    github.setRef('acme-labs', 'agents', 'main', broken);
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await services.imports.syncDue()).toEqual([{ extensionId: installed.id, outcome: 'review-failed' }]);
    const kept = (await services.extensions.get(installed.id))!;
    expect(kept.version).toBe('1.1.0');
    expect(kept.origin.importedFrom!.lastSyncedAt! > updated.origin.importedFrom!.lastSyncedAt!).toBe(true);

    const { history, commitSha, rejectedCommitSha } = await services.imports.imported(installed.id);
    expect(commitSha).toBe(second);
    expect(rejectedCommitSha).toBe(broken);
    expect(history.map((h) => [h.outcome, h.trigger, h.toVersion])).toEqual([
      ['review-failed', 'auto', null],
      ['updated', 'auto', '1.1.0'],
      ['installed', 'manual', '1.0.0'],
    ]);
    expect(history[0]!.reason).toMatch(/call target @acme\/elsewhere is not declared/);

    // The refused commit is not downloaded again while the branch stays on it.
    const downloads = github.requests.filter((r) => r.path.includes('/tarball/')).length;
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await services.imports.syncDue()).toEqual([{ extensionId: installed.id, outcome: 'unchanged' }]);
    expect(github.requests.filter((r) => r.path.includes('/tarball/')).length).toBe(downloads);

    await services.audit.flush();
    const actions = (await services.audit.list({ limit: 50 })).items.filter((row) => row.resourceId === installed.id).map((row) => `${row.action}:${row.actor.type}`);
    expect(actions).toEqual(expect.arrayContaining(['import:ui', 'import.sync:worker']));
  });

  it('a manual import waits for the Update button, which shows the diff and installs on confirmation', async () => {
    const v1 = github.commit('acme-labs', 'glossary', packageFiles({ name: '@acme/glossary', version: '2.0.0' }));
    github.setRef('acme-labs', 'glossary', 'v2', v1);
    const job = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/glossary.git`, ref: 'v2', updatePolicy: 'manual' })).done;
    expect(job.state).toBe('succeeded');
    const extensionId = job.extensionId!;

    expect(await services.imports.startUpdate(admin, extensionId)).toEqual({ upToDate: true, commitSha: v1 });
    github.setRef('acme-labs', 'glossary', 'v2', github.commit('acme-labs', 'glossary', packageFiles({ name: '@acme/glossary', version: '2.1.0' })));
    await sleep(SYNC_INTERVAL_MS + 50);
    expect((await services.imports.syncDue()).map((r) => r.extensionId)).not.toContain(extensionId);

    const update = await services.imports.startUpdate(admin, extensionId);
    if (update.upToDate) throw new Error('expected an update');
    const waiting = await update.done;
    expect(waiting.state).toBe('awaiting-confirmation');
    expect(waiting.staged).toMatchObject({ previousVersion: '2.0.0', version: '2.1.0' });
    expect(waiting.staged!.diff).toMatch(/-\s+"version": "2.0.0"/);
    expect(waiting.staged!.diff).toMatch(/\+\s+"version": "2.1.0"/);
    expect((await services.extensions.get(extensionId))!.version).toBe('2.0.0');

    const confirmed = await services.imports.jobs.confirm(admin, waiting.id, { acknowledgeLicense: false });
    expect(confirmed.state).toBe('succeeded');
    expect((await services.extensions.get(extensionId))!.version).toBe('2.1.0');
    await expect(services.imports.jobs.confirm(admin, waiting.id, { acknowledgeLicense: false })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('a failed download is tried again at the next check; an acknowledged missing license does not stop updates', async () => {
    github.setRef('acme-labs', 'notes', 'main', github.commit('acme-labs', 'notes', packageFiles({ name: '@acme/notes', version: '1.0.0', license: null })));
    const waiting = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/notes`, ref: 'main', updatePolicy: 'auto' })).done;
    expect(waiting.state).toBe('awaiting-confirmation');
    const { extensionId } = await services.imports.jobs.confirm(admin, waiting.id, { acknowledgeLicense: true });
    const next = github.commit('acme-labs', 'notes', packageFiles({ name: '@acme/notes', version: '1.0.1', license: null }));
    github.setRef('acme-labs', 'notes', 'main', next);

    github.failNextDownloads(1);
    await sleep(SYNC_INTERVAL_MS + 50);
    const mine = async () => (await services.imports.syncDue()).filter((r) => r.extensionId === extensionId);
    expect(await mine()).toEqual([{ extensionId, outcome: 'failed' }]);
    expect((await services.imports.imported(extensionId!)).rejectedCommitSha).toBeNull();
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await mine()).toEqual([{ extensionId, outcome: 'updated' }]);
    expect((await services.extensions.get(extensionId!))!.version).toBe('1.0.1');
  });

  it('an update prepared against an older version is refused, and confirming keeps the policy chosen meanwhile', async () => {
    github.setRef('acme-labs', 'terms', 'main', github.commit('acme-labs', 'terms', packageFiles({ name: '@acme/terms', version: '1.0.0' })));
    const { extensionId } = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/terms`, ref: 'main', updatePolicy: 'manual' })).done;
    const prepare = async (version: string) => {
      github.setRef('acme-labs', 'terms', 'main', github.commit('acme-labs', 'terms', packageFiles({ name: '@acme/terms', version })));
      const started = await services.imports.startUpdate(admin, extensionId!);
      if (started.upToDate) throw new Error('expected an update');
      return started.done;
    };
    const older = await prepare('1.1.0');
    const newer = await prepare('1.2.0');
    await services.imports.setUpdatePolicy(admin, extensionId!, 'auto');
    expect((await services.imports.jobs.confirm(admin, newer.id, { acknowledgeLicense: false })).state).toBe('succeeded');
    const installed = (await services.extensions.get(extensionId!))!;
    expect(installed.version).toBe('1.2.0');
    expect(installed.origin.importedFrom!.updatePolicy).toBe('auto');
    const stale = await services.imports.jobs.confirm(admin, older.id, { acknowledgeLicense: false });
    expect(stale).toMatchObject({ state: 'failed', error: { code: 'CONFLICT', message: expect.stringMatching(/is at 1.2.0 now, not 1.0.0/) } });
    expect((await services.extensions.get(extensionId!))!.version).toBe('1.2.0');
  });

  it('a custom license is acknowledged for its text: new terms under the same name stop the auto update', async () => {
    const terms = (year: number) => ({ license: 'SEE LICENSE IN LICENSE', licenseText: `Acme Source License ${year}. Use only inside Acme.` });
    github.setRef('acme-labs', 'custom', 'main', github.commit('acme-labs', 'custom', packageFiles({ name: '@acme/custom', version: '1.0.0', ...terms(2025) })));
    const waiting = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/custom`, ref: 'main', updatePolicy: 'auto' })).done;
    const { extensionId } = await services.imports.jobs.confirm(admin, waiting.id, { acknowledgeLicense: true });
    const mine = async () => (await services.imports.syncDue()).filter((r) => r.extensionId === extensionId).map((r) => r.outcome);

    github.setRef('acme-labs', 'custom', 'main', github.commit('acme-labs', 'custom', packageFiles({ name: '@acme/custom', version: '1.0.1', ...terms(2025) })));
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await mine()).toEqual(['updated']);

    github.setRef('acme-labs', 'custom', 'main', github.commit('acme-labs', 'custom', packageFiles({ name: '@acme/custom', version: '1.0.2', ...terms(2026) })));
    await sleep(SYNC_INTERVAL_MS + 50);
    expect(await mine()).toEqual(['license-changed']);
    expect((await services.extensions.get(extensionId!))!.version).toBe('1.0.1');
  });

  it('a job whose process died is marked failed', async () => {
    const stuck = await t.db.models.ImportJob.create({ source: 'zip', updatePolicy: 'manual', state: 'running', steps: [], actorId: 'x' });
    await t.db.models.ImportJob.collection.updateOne({ _id: stuck._id }, { $set: { updatedAt: new Date(Date.now() - 60_000) } });
    expect(await services.imports.jobs.failInterrupted(30_000)).toBe(1);
    expect(await services.imports.jobs.get(String(stuck._id))).toMatchObject({ state: 'failed', error: { message: expect.stringMatching(/interrupted/) } });
  });

  it('refuses bad repository addresses and unknown refs clearly', async () => {
    await expect(services.imports.startGithub(admin, { url: 'ftp://github.com/a/b', updatePolicy: 'manual' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(services.imports.startGithub(admin, { url: `${github.apiUrl}/only-owner`, updatePolicy: 'manual' })).rejects.toThrow(/must name a repository/);
    // Only repositories of the configured GitHub: what is recorded as the source is what was downloaded.
    await expect(services.imports.startGithub(admin, { url: 'https://gitlab.com/acme-labs/agents', updatePolicy: 'manual' })).rejects.toThrow(/must be a repository on http:\/\/127\.0\.0\.1/);
    const job = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/agents`, ref: 'no-such-branch', updatePolicy: 'manual' })).done;
    expect(job.state).toBe('failed');
    expect(job.steps[0]).toMatchObject({ id: 'download', state: 'failed' });
    expect(job.error!.message).toMatch(/GitHub has no acme-labs\/agents at that ref/);
  });
});
