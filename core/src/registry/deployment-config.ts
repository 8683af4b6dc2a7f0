import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import type { DestinationStore } from './destination-store.ts';
import { DeploymentRegistryConfigNotAvailableError } from './errors.ts';
import type { DeploymentRegistryConfig } from './config-types.ts';

/**
 * Loads the deployment's registry configuration with plaintext tokens. It authenticates nobody:
 * the `actor` parameter exists so every caller must already hold an authenticated actor. This is
 * a lower-level helper: only the destination resolver and the registry settings may import it
 * (test/registry-bypass-scan checks).
 */
export async function loadDeploymentRegistryConfig(
  _actor: Actor,
  deps: { models: Models; destinations: DestinationStore },
): Promise<DeploymentRegistryConfig> {
  const row = await deps.models.RegistryDeployment.findById('default').lean();
  if (!row || !row.routingMode) throw new DeploymentRegistryConfigNotAvailableError();
  const publicDestination = await deps.destinations.openTokens(row.publicDestinationId);
  if (!publicDestination) throw new DeploymentRegistryConfigNotAvailableError('deployment config malformed — public destination missing');
  const privateDestination = row.privateDestinationId ? await deps.destinations.openTokens(row.privateDestinationId) : null;
  return {
    publicRegistryUrl: publicDestination.registryUrl,
    publicReadToken: publicDestination.readToken ?? '',
    publicPublishToken: publicDestination.publishToken,
    privateRegistryUrl: privateDestination?.registryUrl ?? null,
    privateReadToken: privateDestination?.readToken ?? null,
    privatePublishToken: privateDestination?.publishToken ?? null,
    privateDestinationConfigured: !!privateDestination,
    privateDestinationId: privateDestination ? (row.privateDestinationId ?? null) : null,
    routingMode: row.routingMode,
  };
}
