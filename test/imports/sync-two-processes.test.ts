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

afterAll(async (context) => {
  if (context.tasks.some((task) => task.result?.state === 'fail')) for (const w of web) console.error(w.output());
  await Promise.all(web.map((w) => w.stop()));
  await github?.close();
});

describe('the import sync in two web processes', () => {
  it('runs each sync exactly once', async () => {
    const services = testServices(t.db, { SERVICE_GITHUB_API_URL: github.apiUrl, SERVICE_IMPORT_SYNC_INTERVAL_MS: String(INTERVAL_MS) });
    const first = github.commit('acme-labs', 'faq', packageFiles({ name: '@acme/faq', version: '1.0.0' }));
    github.setRef('acme-labs', 'faq', 'main', first);
    const job = await (await services.imports.startGithub(adminOf('@acme'), { url: `${github.apiUrl}/acme-labs/faq`, ref: 'main', updatePolicy: 'auto' })).done;
    expect(job.state).toBe('succeeded');
    const installedAt = Date.now();

    const second = github.commit('acme-labs', 'faq', packageFiles({ name: '@acme/faq', version: '1.1.0' }));
    github.setRef('acme-labs', 'faq', 'main', second);
    await expect.poll(async () => (await services.extensions.get(job.extensionId!))?.version, { timeout: 20_000, interval: 100 }).toBe('1.1.0');
    // Let both processes poll through several more intervals.
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS * 6));

    expect(await t.db.models.ImportSyncEvent.countDocuments({ extensionId: job.extensionId, outcome: 'updated' })).toBe(1);
    expect(github.requests.filter((r) => r.path === `/repos/acme-labs/faq/tarball/${second}`)).toHaveLength(1);
    const checks = github.requests.filter((r) => r.path === '/repos/acme-labs/faq/commits/main' && r.at >= installedAt).map((r) => r.at);
    expect(checks.length).toBeGreaterThanOrEqual(4);
    // Two processes each checking on their own would put two checks inside one interval.
    const gaps = checks.slice(1).map((at, i) => at - checks[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(INTERVAL_MS * 0.75);
    await services.audit.flush();
    const syncs = await t.db.models.AuditEvent.countDocuments({ action: 'import.sync', resourceId: job.extensionId });
    expect(syncs).toBe(1);
  });
});
