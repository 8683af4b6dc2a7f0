import { z } from 'zod';
import { adminProcedure, router } from '../init.server.ts';

export const registriesRouter = router({
  /** Routing mode and destinations; tokens only as "set" or not. */
  get: adminProcedure.query(({ ctx }) => ctx.services.registry.settings.get(ctx.actor)),
  /** Validated by the registry settings schema in core (a clear error per bad field). */
  save: adminProcedure.input(z.unknown()).mutation(({ ctx, input }) => ctx.services.registry.settings.save(ctx.actor, input)),
  /** Deletes the private destination and its sealed tokens; what was published there stays installed. */
  removePrivate: adminProcedure.mutation(({ ctx }) => ctx.services.registry.settings.removePrivate(ctx.actor)),
});
