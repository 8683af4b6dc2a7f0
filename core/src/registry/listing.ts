import type { Actor } from '../auth/index.ts';
import { isVisibleTo } from '../extensions/index.ts';
import { scopeOf } from '../agents/index.ts';
import type { RegistryDeps } from './deps.ts';
import { registryGetJson } from './registry-http.ts';
import type { DestinationName } from './resolver.ts';
import { assertMayAuthor } from './source-operations.ts';

export interface RegistryListingItem {
  packageName: string;
  version: string;
  description: string;
  scope: string;
}

interface SearchResponse {
  objects?: { package: { name: string; version: string; description?: string } }[];
}

/**
 * Packages a registry destination offers for install (npm's search API, read with the
 * destination's read token). The registry's ACL decides what the token may list; the
 * visibility rule applies on top for the private destination.
 */
export function createRegistryListing(deps: RegistryDeps) {
  return async function listRegistry(actor: Actor, from: DestinationName, text = ''): Promise<RegistryListingItem[]> {
    assertMayAuthor(actor);
    const destination = await deps.resolver.forRead(actor, from);
    const query = new URLSearchParams({ text: text.trim() || '@', size: '100' });
    const response = await registryGetJson<SearchResponse>(deps.http, destination.registryUrl, `-/v1/search?${query}`, destination.token);
    return (response?.objects ?? [])
      .map(({ package: pkg }) => ({ packageName: pkg.name, version: pkg.version, description: pkg.description ?? '', scope: scopeOf(pkg.name) ?? '' }))
      .filter((item) => item.scope && (from === 'public' || isVisibleTo({ scope: item.scope, visibility: 'private' }, deps.identity.vendorScope)));
  };
}
