import type { RegistryDeps } from './deps.ts';

/**
 * The spec's baseline fixture configuration: a public registry with a read token placeholder
 * and `publicPublishToken: null`, no private destination. Promotion and public publish fail on
 * it until an operator wires a real resolver.
 */
export async function applyBaselineRegistryFixture(
  deps: Pick<RegistryDeps, 'models' | 'destinations'>,
  options: { publicRegistryUrl: string; publicReadToken?: string; routingMode?: 'scope-based' | 'shared-acl' },
): Promise<void> {
  await deps.destinations.put(
    { id: 'public', visibility: 'public', registryUrl: options.publicRegistryUrl },
    { read: { action: 'replace', value: options.publicReadToken ?? '<PUBLIC_READ_TOKEN>' }, publish: { action: 'clear' } },
  );
  await deps.models.RegistryDeployment.updateOne(
    { _id: 'default' },
    { $set: { routingMode: options.routingMode ?? 'scope-based', publicDestinationId: 'public', privateDestinationId: null } },
    { upsert: true },
  );
}
