import { useTestDatabase } from '@service/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createInstance, registrySettings } from '../helpers/instances.ts';
import { npmView } from '../helpers/npm-cli.ts';
import { startVerdaccio, type RunningRegistry } from '../helpers/verdaccio.ts';

const dbAcme = useTestDatabase();
const dbGlobex = useTestDatabase();
const registries: RunningRegistry[] = [];
afterAll(async () => {
  await Promise.all(registries.map((r) => r.stop()));
});

const scopeAccess = (scope: string, user: string) => ({ [`${scope}/*`]: { access: user, publish: user } });

describe('topology adapters against real Verdaccio', () => {
  it('scope-based: each scope routes to its own registry', async () => {
    const [acmeRegistry, globexRegistry, publicRegistry] = await Promise.all([
      startVerdaccio({ users: ['acme'], packages: scopeAccess('@acme', 'acme') }),
      startVerdaccio({ users: ['globex'], packages: scopeAccess('@globex', 'globex') }),
      startVerdaccio({ users: ['reader'], packages: { '**': { access: '$all', publish: '$authenticated' } } }),
    ]);
    registries.push(acmeRegistry!, globexRegistry!, publicRegistry!);
    const acme = createInstance(dbAcme.db, '@acme');
    const globex = createInstance(dbGlobex.db, '@globex');
    await acme.services.registry.settings.save(acme.admin, registrySettings({ routingMode: 'scope-based', publicUrl: publicRegistry!.url, privateId: 'acme', privateUrl: acmeRegistry!.url, privateToken: acmeRegistry!.tokens.acme }));
    await globex.services.registry.settings.save(globex.admin, registrySettings({ routingMode: 'scope-based', publicUrl: publicRegistry!.url, privateId: 'globex', privateUrl: globexRegistry!.url, privateToken: globexRegistry!.tokens.globex }));

    for (const instance of [acme, globex]) {
      const draft = await instance.author('summarizer');
      await instance.services.registry.publish(instance.admin, draft.id, { destination: 'private', bump: 'minor' });
    }

    expect(acme.npmArgv.at(-1)).toEqual(expect.arrayContaining([`--@acme:registry=${acmeRegistry!.url}`]));
    expect(acme.npmArgv.at(-1)!.some((arg) => arg.startsWith('--registry='))).toBe(false);
    expect(await npmView(acmeRegistry!.url, acmeRegistry!.tokens.acme!, '@acme/summarizer', 'scope')).toMatchObject({ name: '@acme/summarizer', version: '1.1.0' });
    expect(await npmView(globexRegistry!.url, globexRegistry!.tokens.globex!, '@globex/summarizer', 'scope')).toMatchObject({ version: '1.1.0' });
    expect(await npmView(globexRegistry!.url, globexRegistry!.tokens.globex!, '@acme/summarizer', 'scope')).toBeNull();
  });

  it('shared-acl: one registry host, isolated per instance by access rules', async () => {
    const shared = await startVerdaccio({
      users: ['acme', 'globex', 'reader'],
      packages: { ...scopeAccess('@acme', 'acme'), ...scopeAccess('@globex', 'globex'), '**': { access: '$all', publish: '$authenticated' } },
    });
    registries.push(shared);
    const acme = createInstance(dbAcme.db, '@acme');
    const globex = createInstance(dbGlobex.db, '@globex');
    await acme.services.registry.settings.save(acme.admin, registrySettings({ routingMode: 'shared-acl', publicUrl: shared.url, privateId: 'acme', privateUrl: shared.url, privateToken: shared.tokens.acme }));
    await globex.services.registry.settings.save(globex.admin, registrySettings({ routingMode: 'shared-acl', publicUrl: shared.url, privateId: 'globex', privateUrl: shared.url, privateToken: shared.tokens.globex }));

    const acmeDraft = (await acme.services.extensions.getByPackageName('@acme/summarizer'))!;
    const published = await acme.services.registry.publish(acme.admin, acmeDraft.id, { destination: 'private', bump: 'major' });
    const globexDraft = (await globex.services.extensions.getByPackageName('@globex/summarizer'))!;
    await globex.services.registry.publish(globex.admin, globexDraft.id, { destination: 'private' });

    expect(published.version).toBe('2.0.0');
    expect(acme.npmArgv.at(-1)).toEqual(expect.arrayContaining([`--registry=${shared.url}`]));
    expect(acme.npmArgv.at(-1)!.some((arg) => arg.includes(':registry='))).toBe(false);
    expect(await npmView(shared.url, shared.tokens.acme!, '@acme/summarizer')).toMatchObject({ name: '@acme/summarizer', version: '2.0.0' });
    expect(await npmView(shared.url, shared.tokens.globex!, '@globex/summarizer')).toMatchObject({ version: '1.1.1' });
    expect(await npmView(shared.url, shared.tokens.globex!, '@acme/summarizer')).toBeNull();
    expect(await npmView(shared.url, shared.tokens.reader!, '@acme/summarizer')).toBeNull();
  });
});
