import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInstance, registrySettings, type TestInstance } from '../helpers/instances.ts';
import { npmView } from '../helpers/npm-cli.ts';
import { startVerdaccio, type RunningRegistry } from '../helpers/verdaccio.ts';

const t = useTestDatabase();
let registry: RunningRegistry;
let acme: TestInstance;

beforeAll(async () => {
  registry = await startVerdaccio({ users: ['acme'], packages: { '@acme/*': { access: 'acme', publish: 'acme' }, '**': { access: '$all', publish: '$authenticated' } } });
  acme = createInstance(t.db, '@acme');
  await acme.services.registry.settings.save(acme.admin, registrySettings({ routingMode: 'shared-acl', publicUrl: registry.url, privateId: 'acme', privateUrl: registry.url, privateToken: registry.tokens.acme }));
});
afterAll(() => registry?.stop());

async function publishExamples() {
  const { jobs } = await acme.services.registry.publishExamples(acme.admin);
  const ended = [];
  for (const { packageName, jobId, version } of jobs) {
    if (!jobId) {
      ended.push({ packageName, state: 'unchanged', version });
      continue;
    }
    for (;;) {
      const job = (await acme.services.registry.jobs.get(jobId))!;
      if (job.state !== 'running') {
        ended.push({ packageName, state: job.state, version: job.result?.version, error: job.error?.message });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return ended;
}

const shownVersion = async (packageName: string) => (await acme.services.extensions.getByPackageName(packageName))?.version;

describe('publishing what is already published (real Verdaccio)', () => {
  it('publishing the examples a second time changes nothing and fails nothing; the shown versions are the registry’s', async () => {
    const first = await publishExamples();
    expect(first.every((job) => job.state === 'succeeded')).toBe(true);
    const second = await publishExamples();
    expect(second.map((job) => job.state)).toEqual(first.map(() => 'unchanged'));
    for (const job of first) {
      expect(await shownVersion(job.packageName)).toBe(job.version);
      expect(await npmView(registry.url, registry.tokens.acme!, job.packageName)).toMatchObject({ version: job.version });
    }
  }, 120_000);

  it('starting from an example over a published agent asks first, and keeps the published version when confirmed', async () => {
    const published = (await acme.services.extensions.getByPackageName('@acme/summarizer'))!;
    // Unchanged: nothing to overwrite, nothing written.
    expect((await acme.services.registry.compileExample(acme.admin, 'summarizer')).version).toBe(published.version);
    // Changed since: the example would replace it, so it is refused unless confirmed.
    await acme.services.registry.compile(acme.admin, { manifest: { ...(published.source.manifest as object), description: 'Edited here' }, flow: published.source.flow });
    await expect(acme.services.registry.compileExample(acme.admin, 'summarizer')).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('published') });
    const replaced = await acme.services.registry.compileExample(acme.admin, 'summarizer', { overwrite: true });
    expect(replaced.version).toBe(published.version);
    const next = await acme.services.registry.publish(acme.admin, replaced.id, { destination: 'private', bump: 'patch' });
    expect(next.version).not.toBe(published.version);
    expect(await shownVersion('@acme/summarizer')).toBe(next.version);
  }, 120_000);
});
