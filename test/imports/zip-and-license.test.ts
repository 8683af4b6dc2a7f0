import { testServices, useTestDatabase } from '@service/core/testing';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { packageFiles } from '../helpers/github-double.ts';
import { adminOf } from '../helpers/instances.ts';

const t = useTestDatabase();
const admin = adminOf('@acme');
let services: ReturnType<typeof testServices>;

beforeAll(() => {
  services = testServices(t.db);
});
beforeEach(async () => {
  await Promise.all([t.db.models.Extension.deleteMany({}), t.db.models.ExtensionImport.deleteMany({}), t.db.models.ImportSyncEvent.deleteMany({})]);
});

const zipOf = (files: Record<string, string>, extra: Zippable = {}) =>
  Buffer.from(zipSync({ ...Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])), ...extra }));

async function importZip(bytes: Buffer, fileName = 'faq.zip') {
  return (await services.imports.startZip(admin, { fileName, bytes })).done;
}

async function nothingWritten() {
  expect(await t.db.models.Extension.countDocuments({})).toBe(0);
  expect(await t.db.models.ExtensionImport.countDocuments({})).toBe(0);
}

describe('importing a zip', () => {
  it('installs a good package with the zip origin', async () => {
    const job = await importZip(zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0', folder: 'faq' })));
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    const extension = (await services.extensions.get(job.extensionId!))!;
    expect(extension).toMatchObject({ packageName: '@acme/faq', version: '1.0.0', status: 'installed', kind: 'agent' });
    expect(extension.origin).toEqual({
      packageName: '@acme/faq',
      version: '1.0.0',
      destinationId: null,
      scope: '@acme',
      visibility: 'private',
      registryUrl: '',
      importedFrom: { source: 'zip', url: 'faq.zip', license: 'MIT', licenseAcknowledged: true, updatePolicy: 'manual', lastSyncedAt: expect.any(String) },
    });
    expect((await services.extensions.marketplace({})).items.map((i) => i.packageName)).toContain('@acme/faq');
  });

  it.each([
    ['a path-traversal entry', () => zipOf({ ...packageFiles({ name: '@acme/faq', version: '1.0.0' }), '../../outside.txt': 'x' }), /path traversal/],
    ['a symlink escape', () => zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0' }), { 'LICENSE': [strToU8('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] }), /symbolic link/],
    ['an oversized archive', () => zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0' }), { 'noise.bin': [Uint8Array.from({ length: 6 * 1024 * 1024 }, (_, i) => (i * 2654435761) >>> 24), { level: 0 }] }), /over the 5242880-byte limit/],
    ['a zip bomb', () => zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0' }), { 'zeros.txt': [new Uint8Array(64 * 1024 * 1024), { level: 9 }] }), /unpacks to/],
  ])('refuses %s with nothing written', async (_, build, reason) => {
    const job = await importZip(build());
    expect(job.state).toBe('failed');
    expect(job.steps.find((s) => s.id === 'unpack')).toMatchObject({ state: 'failed', detail: expect.stringMatching(reason) });
    expect(job.error!.message).toMatch(/nothing was imported/);
    await nothingWritten();
  });

  it('reviews like a locally authored package: outside the instance scope is refused', async () => {
    const job = await importZip(zipOf(packageFiles({ name: '@globex/faq', version: '1.0.0' })));
    expect(job.state).toBe('failed');
    expect(job.steps.find((s) => s.id === 'review')).toMatchObject({ state: 'failed' });
    expect(job.error).toMatchObject({ code: 'REVIEW_FAILED', details: [{ path: 'package.json:name', reason: expect.stringMatching(/outside this instance's scope @acme/) }] });
    await nothingWritten();
    // The failure is in the audit log, once, with the step that failed.
    await services.audit.flush();
    const rows = (await services.audit.list({ limit: 50 })).items.filter((row) => row.action === 'import.fail' && row.resourceId === job.id);
    expect(rows).toEqual([expect.objectContaining({ actor: expect.objectContaining({ id: admin.id }), resourceType: 'import_job', details: expect.objectContaining({ step: 'review', code: 'REVIEW_FAILED' }) })]);
  });

  it('refuses a second import of the same package name', async () => {
    expect((await importZip(zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0' })))).state).toBe('succeeded');
    const again = await importZip(zipOf(packageFiles({ name: '@acme/faq', version: '1.0.1' })));
    expect(again.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already on this instance \(imported from zip\)/) });
  });
});

describe('licenses', () => {
  it('MIT installs without a prompt and records the license as acknowledged', async () => {
    const job = await importZip(zipOf(packageFiles({ name: '@acme/mit', version: '1.0.0', license: 'MIT', licenseText: 'MIT License\n\nCopyright…' })));
    expect(job.state).toBe('succeeded');
    expect(job.steps.find((s) => s.id === 'license')).toMatchObject({ state: 'done', detail: 'MIT (permissive)' });
    expect((await services.extensions.get(job.extensionId!))!.origin.importedFrom).toMatchObject({ license: 'MIT', licenseAcknowledged: true });
  });

  it.each([
    ['a non-permissive license', 'GPL-3.0-only', 'GNU GENERAL PUBLIC LICENSE\nVersion 3'],
    ['no license at all', null, undefined],
  ])('%s is refused until acknowledged, and the acknowledgement is audited', async (_, license, licenseText) => {
    const job = await importZip(zipOf(packageFiles({ name: '@acme/copyleft', version: '1.0.0', license, ...(licenseText ? { licenseText } : {}) })));
    expect(job.state).toBe('awaiting-confirmation');
    expect(job.steps.find((s) => s.id === 'license')).toMatchObject({ state: 'waiting' });
    expect(job.staged!.license).toMatchObject({ spdx: license, permissive: false, text: licenseText ?? null });
    await nothingWritten();

    await expect(services.imports.jobs.confirm(admin, job.id, { acknowledgeLicense: false })).rejects.toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringMatching(/acknowledge the license/) });
    await nothingWritten();
    const operator = { type: 'route', id: 'widget', route: 'x' } as const;
    await expect(services.imports.jobs.confirm(operator, job.id, { acknowledgeLicense: true })).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const installed = await services.imports.jobs.confirm(admin, job.id, { acknowledgeLicense: true });
    expect(installed.state).toBe('succeeded');
    expect(installed.steps.find((s) => s.id === 'license')).toMatchObject({ state: 'done', detail: expect.stringMatching(/acknowledged by admin@acme.test/) });
    const extension = (await services.extensions.get(installed.extensionId!))!;
    expect(extension.origin.importedFrom).toMatchObject({ source: 'zip', licenseAcknowledged: true, ...(license ? { license } : {}) });

    await services.audit.flush();
    const rows = (await services.audit.list({ limit: 20 })).items.filter((row) => row.action === 'import.license.acknowledge');
    expect(rows[0]).toMatchObject({ actor: { type: 'ui', id: admin.id }, details: { packageName: '@acme/copyleft', version: '1.0.0', license } });
  });

  it('of two imports of one package waiting for their license, only the first confirmed installs', async () => {
    const build = () => zipOf(packageFiles({ name: '@acme/twice', version: '1.0.0', license: 'MPL-2.0' }));
    const [first, second] = await Promise.all([importZip(build()), importZip(build())]);
    expect((await services.imports.jobs.confirm(admin, first.id, { acknowledgeLicense: true })).state).toBe('succeeded');
    const refused = await services.imports.jobs.confirm(admin, second.id, { acknowledgeLicense: true });
    expect(refused).toMatchObject({ state: 'failed', error: { code: 'CONFLICT', message: expect.stringMatching(/already on this instance/) } });
    expect(await t.db.models.Extension.countDocuments({ packageName: '@acme/twice' })).toBe(1);
  });

  it('a discarded import installs nothing', async () => {
    const job = await importZip(zipOf(packageFiles({ name: '@acme/busl', version: '1.0.0', license: 'BUSL-1.1' })));
    expect((await services.imports.jobs.discard(admin, job.id)).state).toBe('discarded');
    await expect(services.imports.jobs.confirm(admin, job.id, { acknowledgeLicense: true })).rejects.toMatchObject({ code: 'CONFLICT' });
    await nothingWritten();
  });
});

describe('update policy', () => {
  it('only GitHub imports update automatically; a change of policy is audited', async () => {
    const job = await importZip(zipOf(packageFiles({ name: '@acme/faq', version: '1.0.0' })));
    await expect(services.imports.setUpdatePolicy(admin, job.extensionId!, 'auto')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await t.db.models.Extension.updateOne({ _id: job.extensionId }, { $set: { 'origin.importedFrom.source': 'github' } });
    const changed = await services.imports.setUpdatePolicy(admin, job.extensionId!, 'auto');
    expect(changed.origin.importedFrom!.updatePolicy).toBe('auto');
    await services.audit.flush();
    const row = (await services.audit.list({ limit: 20 })).items.find((r) => r.action === 'import.policy');
    expect(row).toMatchObject({ resourceId: job.extensionId, details: { packageName: '@acme/faq', from: 'manual', to: 'auto' } });
  });
});
