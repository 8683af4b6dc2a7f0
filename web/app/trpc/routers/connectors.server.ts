import { z } from 'zod';
import { credential, instanceId, instanceName, siteUrl, webhookSecret } from '../../schemas/connectors.ts';
import { adminProcedure, router } from '../init.server.ts';

const connector = z.enum(['cms_a', 'cms_b']);

export const connectorsRouter = router({
  instances: adminProcedure.input(z.object({ connector })).query(({ ctx, input }) => ctx.services.connectorInstances.list(input.connector)),
  /** Credentials are write-only: empty keeps the stored one. */
  save: adminProcedure
    .input(z.object({ connector, id: instanceId, name: instanceName, siteUrl, username: z.string().max(200).nullish(), credential, webhookSecret }))
    .mutation(({ ctx, input }) => ctx.services.connectorInstances.put(ctx.actor, input)),
  /** Removes the instance with its sealed credentials, widget key and settings (core/src/connectors/instances.ts). */
  remove: adminProcedure.input(z.object({ connector, id: instanceId })).mutation(({ ctx, input }) => ctx.services.connectorInstances.remove(ctx.actor, input.connector, input.id)),
  /** "Test connection": the connector's own `<cms>_status` primitive, through the same gate. */
  test: adminProcedure.input(z.object({ connector, id: instanceId })).mutation(({ ctx, input }) => ctx.services.primitives.call(ctx.actor, `${input.connector}_status`, { instanceId: input.id })),
});
