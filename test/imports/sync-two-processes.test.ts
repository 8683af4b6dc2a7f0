import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageFiles, startGithubDouble, type GithubDouble } from '../helpers/github-double.ts';
import { adminOf } from '../helpers/instances.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
const INTERVAL_MS = 400;
let github: GithubDouble;
let web: RunningService[] = [];

beforeAll(async () => {
  github = await startGithubDouble();
  const env = { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_GITHUB_API_URL: github.apiUrl, SERVICE_IMPORT_SYNC_INTERVAL_MS: String(INTERVAL_MS), SERVICE_IMPORT_SYNC_ENABLED: 'true' };
  web = await Promise.all([startService({ mongodbUri: t.uri, env }), startService({ mongodbUri: t.uri, env })]);
});

// The suite comes second since vitest 4.1 (the first argument holds fixtures, read by destructuring).
// eslint-disable-next-line no-empty-pattern
afterAll(async ({}, suite) => {
  if (suite.tasks.some((task) => task.result?.state === 'fail')) for (const w of web) console.error(w.output());
  await Promise.all(web.map((w) => w.stop()));
  await github?.close();
});

describe('the import sync in two web processes', () => {
  it('runs each sync exactly once: every check of the ref after the import is one claimed due time', async () => {
    const services = testServices(t.db, { SERVICE_GITHUB_API_URL: github.apiUrl, SERVICE_IMPORT_SYNC_INTERVAL_MS: String(INTERVAL_MS) });
    const admin = adminOf('@acme');
    const refChecks = () => github.requests.filter((r) => r.path === '/repos/acme-labs/faq/commits/main').length;
    const first = github.commit('acme-labs', 'faq', packageFiles({ name: '@acme/faq', version: '1.0.0' }));
    github.setRef('acme-labs', 'faq', 'main', first);
    const job = await (await services.imports.startGithub(admin, { url: `${github.apiUrl}/acme-labs/faq`, ref: 'main', updatePolicy: 'auto' })).done;
    expect(job.state).toBe('succeeded');

    const second = github.commit('acme-labs', 'faq', packageFiles({ name: '@acme/faq', version: '1.1.0' }));
    github.setRef('acme-labs', 'faq', 'main', second);
    await expect.poll(async () => (await services.extensions.get(job.extensionId!))?.version, { timeout: 20_000, interval: 100 }).toBe('1.1.0');
    // Both processes go on polling: wait for several more checks of the ref, then stop the syncs.
    const checksAtUpdate = refChecks();
    await expect.poll(refChecks, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(checksAtUpdate + 4);
    await services.imports.setUpdatePolicy(admin, job.extensionId!, 'manual');

    // Each sync first claims its import's due time (an insert-once row keyed by it), then checks the
    // ref; the import itself checked it once without a claim. Checks claimed before the syncs
    // stopped land meanwhile; two processes each checking on their own would check more often.
    const prefix = `import-sync:${String((await t.db.models.ExtensionImport.findOne({ extensionId: job.extensionId }).lean())!._id)}:`;
    const claimedDueTimes = async () => (await t.db.models.Claim.find({}, { _id: 1 }).lean()).map((claim) => String(claim._id)).filter((key) => key.startsWith(prefix)).map((key) => Number(key.slice(prefix.length)));
    await expect.poll(async () => refChecks() - (await claimedDueTimes()).length, { timeout: 20_000, interval: 100 }).toBe(1);
    const dueTimes = await claimedDueTimes();
    expect(dueTimes.every(Number.isInteger), dueTimes.join(', ')).toBe(true);
    expect(new Set(dueTimes).size, 'due times claimed more than once').toBe(dueTimes.length);

    expect(await t.db.models.ImportSyncEvent.countDocuments({ extensionId: job.extensionId, outcome: 'updated' })).toBe(1);
    expect(github.requests.filter((r) => r.path === `/repos/acme-labs/faq/tarball/${second}`)).toHaveLength(1);
    await services.audit.flush();
    const syncs = await t.db.models.AuditEvent.countDocuments({ action: 'import.sync', resourceId: job.extensionId });
    expect(syncs).toBe(1);
  });
});
