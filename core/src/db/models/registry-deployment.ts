import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The deployment's registry topology (one row, `_id: "default"`). Tokens are not here: they live
 * sealed in the destination store. `routingMode` is deliberately not required by the schema so
 * the loader, not a write, reports a row that lacks it.
 */
export const registryDeploymentSchema = new Schema(
  {
    _id: { type: String, default: 'default' },
    publicDestinationId: { type: String, default: 'public' },
    privateDestinationId: { type: String, default: null },
    routingMode: { type: String, enum: ['scope-based', 'shared-acl'] },
    /** Set while the destinations are the embedded registry the service started itself; an admin's save clears it. */
    embedded: { type: Boolean, default: false },
  },
  { timestamps: true, collection: 'registry_deployments' },
);

export type RegistryDeploymentRecord = InferSchemaType<typeof registryDeploymentSchema>;
