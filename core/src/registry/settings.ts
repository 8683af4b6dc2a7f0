import { z } from 'zod';
import { isAdmin, systemActor, type Actor } from '../auth/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import type { RegistryDeps } from './deps.ts';
import { ROUTING_MODES, type RoutingMode } from './config-types.ts';
import type { DestinationSummary } from './destination-store.ts';

const registryUrl = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash;
}, 'must be an http(s) registry URL without credentials, query or fragment');

const tokenChange = z.discriminatedUnion('action', [
  z.object({ action: z.literal('keep') }),
  z.object({ action: z.literal('replace'), value: z.string().min(1).max(4096) }),
  z.object({ action: z.literal('clear') }),
]);

export const registrySettingsInput = z.object({
  routingMode: z.enum(ROUTING_MODES as [RoutingMode, ...RoutingMode[]]),
  public: z.object({ registryUrl, publishToken: tokenChange, readToken: tokenChange }),
  private: z
    .object({
      id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and dashes'),
      registryUrl,
      publishToken: tokenChange,
      readToken: tokenChange,
    })
    .nullable(),
});
export type RegistrySettingsInput = z.infer<typeof registrySettingsInput>;

export interface RegistrySettings {
  routingMode: RoutingMode | null;
  /** The destinations are the embedded registry (the embedded default, until an admin saves real ones). */
  embedded: boolean;
  public: DestinationSummary | null;
  private: DestinationSummary | null;
}

const PUBLIC_ID = 'public';
const EMBEDDED_PRIVATE_ID = 'embedded-private';

/** Administration › Settings › Registries. Tokens are write-only: reads say only whether one is set. */
export function createRegistrySettings(deps: RegistryDeps) {
  const requireAdmin = (actor: Actor) => {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Registry settings are for admins only');
  };

  async function get(actor: Actor): Promise<RegistrySettings> {
    requireAdmin(actor);
    const row = await deps.models.RegistryDeployment.findById('default').lean();
    return {
      routingMode: row?.routingMode ?? null,
      embedded: row?.embedded === true,
      public: await deps.destinations.summary(row?.publicDestinationId ?? PUBLIC_ID),
      private: row?.privateDestinationId ? await deps.destinations.summary(row.privateDestinationId) : null,
    };
  }

  async function save(actor: Actor, raw: unknown): Promise<RegistrySettings> {
    requireAdmin(actor);
    const input = parseOrThrow(registrySettingsInput, raw, 'Invalid registry settings');
    if (input.private?.id === PUBLIC_ID) throw new DomainError('VALIDATION_FAILED', 'The private destination id cannot be "public"');
    // Both destinations are checked before either is written.
    await deps.destinations.refuseTokensLeavingTheirOrigin({ id: PUBLIC_ID, visibility: 'public', registryUrl: input.public.registryUrl }, { publish: input.public.publishToken, read: input.public.readToken });
    if (input.private) await deps.destinations.refuseTokensLeavingTheirOrigin({ id: input.private.id, visibility: 'private', registryUrl: input.private.registryUrl }, { publish: input.private.publishToken, read: input.private.readToken });
    await deps.destinations.put({ id: PUBLIC_ID, visibility: 'public', registryUrl: input.public.registryUrl }, { publish: input.public.publishToken, read: input.public.readToken });
    if (input.private) {
      await deps.destinations.put({ id: input.private.id, visibility: 'private', registryUrl: input.private.registryUrl }, { publish: input.private.publishToken, read: input.private.readToken });
    }
    await deps.models.RegistryDeployment.updateOne(
      { _id: 'default' },
      { $set: { routingMode: input.routingMode, publicDestinationId: PUBLIC_ID, privateDestinationId: input.private?.id ?? null, embedded: false } },
      { upsert: true },
    );
    // Registries an admin configures meet the address policy like any other call.
    deps.embeddedOrigins.clear();
    const changedTokens = [
      ...(['publishToken', 'readToken'] as const).filter((k) => input.public[k].action !== 'keep').map((k) => `public.${k}:${input.public[k].action}`),
      ...(input.private ? (['publishToken', 'readToken'] as const).filter((k) => input.private![k].action !== 'keep').map((k) => `private.${k}:${input.private![k].action}`) : []),
    ];
    deps.audit.record(actor, {
      action: 'registry.settings.update',
      resourceType: 'registry_deployment',
      resourceId: 'default',
      details: { routingMode: input.routingMode, publicRegistryUrl: input.public.registryUrl, privateRegistryUrl: input.private?.registryUrl ?? null, changedTokens },
    });
    return get(actor);
  }

  /**
   * Removes the private destination: its sealed tokens are deleted and the instance's own packages
   * go to no private registry until one is set again (publishing privately is refused meanwhile).
   * Extensions already published there stay installed; their origin keeps that registry's URL.
   * The embedded registry's is not removed this way: save real registries first.
   */
  async function removePrivate(actor: Actor): Promise<RegistrySettings> {
    requireAdmin(actor);
    const row = await deps.models.RegistryDeployment.findById('default').lean();
    if (!row?.privateDestinationId) throw new DomainError('NOT_FOUND', 'No private destination is set');
    if (row.embedded) throw new DomainError('CONFLICT', 'The private destination is the embedded registry: save real registries to replace it');
    const removed = await deps.destinations.summary(row.privateDestinationId);
    await deps.models.RegistryDeployment.updateOne({ _id: 'default', privateDestinationId: row.privateDestinationId }, { $set: { privateDestinationId: null } });
    await deps.destinations.remove(row.privateDestinationId);
    deps.audit.record(actor, { action: 'registry.private.remove', resourceType: 'registry_destination', resourceId: row.privateDestinationId, details: { registryUrl: removed?.registryUrl ?? null } });
    return get(actor);
  }

  /** Whether the service may point the deployment at its embedded registry: nothing configured yet, or the embedded one already. */
  async function embeddedOrUnset(): Promise<boolean> {
    const row = await deps.models.RegistryDeployment.findById('default').lean();
    return !row || !row.routingMode || row.embedded === true;
  }

  /**
   * Points both destinations at the embedded registry (scope-based routing: the instance's scope
   * to the private destination, everything else to the public one, both on the same Verdaccio),
   * with its token; called at start-up while `embeddedOrUnset`. Recorded as the service's own doing.
   */
  async function useEmbedded(registry: { url: string; token: string }): Promise<void> {
    const token = { action: 'replace' as const, value: registry.token };
    // The port may differ from the last start: a new origin takes the token given here.
    await deps.destinations.put({ id: PUBLIC_ID, visibility: 'public', registryUrl: registry.url }, { publish: token, read: token });
    await deps.destinations.put({ id: EMBEDDED_PRIVATE_ID, visibility: 'private', registryUrl: registry.url }, { publish: token, read: token });
    await deps.models.RegistryDeployment.updateOne(
      { _id: 'default' },
      { $set: { routingMode: 'scope-based', publicDestinationId: PUBLIC_ID, privateDestinationId: EMBEDDED_PRIVATE_ID, embedded: true } },
      { upsert: true },
    );
    // The service's own registry listens on loopback: reachable whatever the private-address rule says, and only it.
    deps.embeddedOrigins.clear();
    deps.embeddedOrigins.add(new URL(registry.url).origin);
    deps.audit.record(systemActor('embedded-registry'), { action: 'registry.embedded.use', resourceType: 'registry_deployment', resourceId: 'default', details: { registryUrl: registry.url } });
  }

  return { get, save, removePrivate, embeddedOrUnset, useEmbedded };
}
