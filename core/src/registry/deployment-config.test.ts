import { describe, expect, it } from 'vitest';
import { systemActor } from '../auth/index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';
import { createDestinationStore, tokenLabel } from './destination-store.ts';
import { loadDeploymentRegistryConfig } from './deployment-config.ts';
import { createDestinationResolver } from './resolver.ts';
import { applyBaselineRegistryFixture, DeploymentRegistryConfigNotAvailableError, PublicRegistryResolverNotWiredError } from './index.ts';

const t = useTestDatabase();
const actor = systemActor('test');

describe('DeploymentRegistryConfig loader', () => {
  it('fails with the exact spec error when routingMode is unset', async () => {
    const services = testServices(t.db);
    const destinations = createDestinationStore(t.db.models, services.sealer);
    await t.db.models.RegistryDeployment.deleteMany({});
    await t.db.models.RegistryDeployment.create({ _id: 'default', publicDestinationId: 'public' });
    const error = await loadDeploymentRegistryConfig(actor, { models: t.db.models, destinations }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeploymentRegistryConfigNotAvailableError);
    expect((error as Error).name).toBe('DeploymentRegistryConfigNotAvailableError');
    expect((error as Error).message).toBe('deployment config malformed — routingMode missing');

    await t.db.models.RegistryDeployment.deleteMany({});
    await expect(loadDeploymentRegistryConfig(actor, { models: t.db.models, destinations })).rejects.toThrow('deployment config malformed — routingMode missing');
  });

  it('loads the baseline fixture with publicPublishToken null and every spec field', async () => {
    const services = testServices(t.db);
    const destinations = createDestinationStore(t.db.models, services.sealer);
    await applyBaselineRegistryFixture({ models: t.db.models, destinations }, { publicRegistryUrl: 'http://127.0.0.1:4873/' });
    const config = await loadDeploymentRegistryConfig(actor, { models: t.db.models, destinations });
    expect(config).toEqual({
      publicRegistryUrl: 'http://127.0.0.1:4873/',
      publicReadToken: '<PUBLIC_READ_TOKEN>',
      publicPublishToken: null,
      privateRegistryUrl: null,
      privateReadToken: null,
      privatePublishToken: null,
      privateDestinationConfigured: false,
      privateDestinationId: null,
      routingMode: 'scope-based',
    });

    const resolver = createDestinationResolver({ models: t.db.models, destinations });
    const error = await resolver.forPublish(actor, 'public').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublicRegistryResolverNotWiredError);
    expect((error as Error).message).toContain('Administration › Settings › Registries');
  });

  it('seals tokens per destination: a token does not open under another destination\'s label', async () => {
    const services = testServices(t.db);
    const destinations = createDestinationStore(t.db.models, services.sealer);
    await destinations.put({ id: 'team-a', visibility: 'private', registryUrl: 'http://127.0.0.1:1/' }, { publish: { action: 'replace', value: 'npm_AAAA' }, read: { action: 'replace', value: 'npm_RRRR' } });
    await destinations.put({ id: 'team-b', visibility: 'private', registryUrl: 'http://127.0.0.1:2/' }, { publish: { action: 'replace', value: 'npm_BBBB' } });
    const row = await t.db.models.RegistryDestination.findById('team-a').lean();
    expect(JSON.stringify(row)).not.toContain('npm_AAAA');
    expect(services.sealer.open(row!.publishTokenSealed!, tokenLabel('team-a', 'publish'))).toBe('npm_AAAA');
    expect(() => services.sealer.open(row!.publishTokenSealed!, tokenLabel('team-b', 'publish'))).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_INVALID' }));
    expect(() => services.sealer.open(row!.publishTokenSealed!, tokenLabel('team-a', 'read'))).toThrowError(expect.objectContaining({ code: 'SEALED_SECRET_INVALID' }));

    // A sealed value copied onto another destination's row does not open there.
    await t.db.models.RegistryDestination.updateOne({ _id: 'team-b' }, { $set: { publishTokenSealed: row!.publishTokenSealed } });
    await expect(destinations.openTokens('team-b')).rejects.toMatchObject({ code: 'SEALED_SECRET_INVALID' });
    expect(await destinations.summary('team-a')).toEqual({ id: 'team-a', visibility: 'private', registryUrl: 'http://127.0.0.1:1/', publishTokenSet: true, readTokenSet: true });
  });
});
