/**
 * Publish through the service (compile, review, pack, resolve and unseal, temporary npmrc,
 * npm publish, origin update, audit) against a raw `npm publish` of an equivalent tarball to
 * the same Verdaccio, interleaved. Goal: ratio <= 1.2.
 */
import path from 'node:path';
import { loadExample } from '@service/core/agents';
import { createMemoryLogger } from '@service/core/log';
import { createNpmRunner, packSource, withTemporaryNpmrc } from '@service/core/registry';
import { testServices } from '@service/core/testing/services';
import { benchDatabase } from './bench-environment.ts';
import { report, sideBySide } from './harness.ts';
import { startVerdaccio } from '../helpers/verdaccio.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 12);

const registry = await startVerdaccio({ users: ['acme'], packages: { '@acme/*': { access: 'acme', publish: 'acme' } } });
const database = await benchDatabase('bench_publish');
try {
  const services = testServices(database.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  const admin = { type: 'ui', id: 'bench', email: 'bench@acme.test', role: 'admin' } as const;
  const change = { action: 'replace' as const, value: registry.tokens.acme! };
  await services.registry.settings.save(admin, {
    routingMode: 'scope-based',
    public: { registryUrl: registry.url, publishToken: { action: 'clear' }, readToken: { action: 'clear' } },
    private: { id: 'bench', registryUrl: registry.url, publishToken: change, readToken: change },
  });
  const draft = await services.registry.compile(admin, loadExample('summarizer', '@acme'));
  const npm = createNpmRunner(createMemoryLogger());
  const rawSource = loadExample('summarizer', '@acme') as { manifest: Record<string, unknown>; flow: unknown };

  const result = await sideBySide(
    'publish one extension package to Verdaccio',
    { iterations: ITERATIONS, warmup: 1 },
    {
      name: 'raw npm publish <tarball> --@acme:registry --userconfig',
      run: async (i) => {
        const tarball = await packSource({ manifest: { ...rawSource.manifest, name: '@acme/raw-baseline', version: `1.0.${i}` }, flow: rawSource.flow }, 'flow.json');
        try {
          await withTemporaryNpmrc(registry.url, registry.tokens.acme!, (userconfig) =>
            npm.run(['publish', tarball.file, `--@acme:registry=${registry.url}`, '--tag', 'latest'], { cwd: path.dirname(tarball.file), userconfig }),
          );
        } finally {
          await tarball.dispose();
        }
      },
    },
    { name: 'services.registry.publish (agent_source_publish)', run: () => services.registry.publish(admin, draft.id, { destination: 'private' }) },
  );
  console.log(`  database: ${database.kind}`);
  report(result, 1.2);
  await services.audit.flush();
} finally {
  await database.stop();
  await registry.stop();
}
