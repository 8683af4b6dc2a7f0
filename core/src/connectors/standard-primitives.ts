import { z } from 'zod';
import { instanceId, type ConnectorInstances, type ConnectorInstanceView } from './instances.ts';
import { definePrimitive, type Primitive, type PrimitiveAnnotations } from './primitive.ts';
import { openObject, orNull } from './portable-schemas.ts';

export const READ_ONLY: PrimitiveAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
/** Writes that leave the same result when repeated (set these fields, publish this draft). */
export const WRITE_IDEMPOTENT: PrimitiveAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true };
/** Writes that add something each time (a new draft, an upload, an editor run). */
export const WRITE_ADDITIVE: PrimitiveAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };

/**
 * `<connector>_status`: an unknown instance is an error; a site that cannot be reached or refuses
 * the credential answers `connected: false` with the reason. `probe` adds what the site says.
 */
export function statusPrimitive(input: {
  connector: string;
  description: string;
  instances: ConnectorInstances;
  probe: (instance: ConnectorInstanceView & { credential: string }) => Promise<Record<string, unknown>>;
}): Primitive {
  return definePrimitive({
    name: `${input.connector}_status`,
    connector: input.connector,
    description: input.description,
    input: z.object({ instanceId }),
    // What the site adds (its user, name or version) depends on the connector.
    output: openObject({ instanceId: z.string(), connected: z.boolean(), reason: z.string().optional() }),
    annotations: READ_ONLY,
    permission: 'read',
    async handler(_context, { instanceId: id }) {
      const instance = await input.instances.withCredential(input.connector, id);
      try {
        return { instanceId: id, connected: true, ...(await input.probe(instance)) };
      } catch (error) {
        return { instanceId: id, connected: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },
  });
}

/** `<connector>_instances_list`: the connector's configured instances, never their credentials. */
export function instancesListPrimitive(connector: string, label: string, instances: ConnectorInstances): Primitive {
  return definePrimitive({
    name: `${connector}_instances_list`,
    connector,
    description: `All configured ${label} instances (no credentials).`,
    input: z.object({}).strict(),
    output: z.array(z.object({ id: z.string(), connector: z.string(), name: z.string(), siteUrl: z.string(), username: orNull(z.string(), 'the credential names no user') })),
    annotations: READ_ONLY,
    permission: 'read',
    handler: () => instances.list(connector),
  });
}
