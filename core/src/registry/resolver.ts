import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
import { loadDeploymentRegistryConfig } from './deployment-config.ts';
import type { RoutingMode } from './config-types.ts';
import type { DestinationStore } from './destination-store.ts';
import { PrivateDestinationNotConfiguredError, PublicRegistryResolverNotWiredError } from './errors.ts';

export type DestinationName = 'public' | 'private';

/** What one publish or read against one destination needs. Tokens are decrypted per call. */
export interface ResolvedDestination {
  name: DestinationName;
  /** The private destination's id; null for the public registry (as in `origin.destinationId`). */
  destinationId: string | null;
  registryUrl: string;
  routingMode: RoutingMode;
  token: string | null;
}

export interface DestinationResolver {
  /**
   * What a publish or a read against one destination needs, decrypted for this call only.
   * A publish without a publish token fails with a named error (for the public destination:
   * PublicRegistryResolverNotWiredError).
   */
  forDestination(actor: Actor, name: DestinationName, purpose: 'publish' | 'read'): Promise<ResolvedDestination>;
  /** forDestination(…, 'publish'), typed with a non-null token. */
  forPublish(actor: Actor, name: DestinationName): Promise<ResolvedDestination & { token: string }>;
  /** forDestination(…, 'read'): the read token is null for an anonymous public registry. */
  forRead(actor: Actor, name: DestinationName): Promise<ResolvedDestination>;
}

export function createDestinationResolver(deps: { models: Models; destinations: DestinationStore }): DestinationResolver {
  const resolve = async (actor: Actor, name: DestinationName, purpose: 'publish' | 'read') => {
    const config = await loadDeploymentRegistryConfig(actor, deps);
    if (name === 'public') {
      const token = purpose === 'publish' ? config.publicPublishToken : config.publicReadToken || null;
      if (purpose === 'publish' && !token) throw new PublicRegistryResolverNotWiredError();
      return { name, destinationId: null, registryUrl: config.publicRegistryUrl, routingMode: config.routingMode, token };
    }
    if (!config.privateDestinationConfigured || !config.privateRegistryUrl) {
      throw new PrivateDestinationNotConfiguredError('no private destination is set');
    }
    const token = purpose === 'publish' ? config.privatePublishToken : config.privateReadToken;
    if (purpose === 'publish' && !token) throw new PrivateDestinationNotConfiguredError('its publish token is not set');
    return { name, destinationId: config.privateDestinationId, registryUrl: config.privateRegistryUrl, routingMode: config.routingMode, token };
  };
  return {
    forDestination: resolve,
    forPublish: async (actor, name) => (await resolve(actor, name, 'publish')) as ResolvedDestination & { token: string },
    forRead: (actor, name) => resolve(actor, name, 'read'),
  };
}
