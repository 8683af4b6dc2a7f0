import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A configured CMS site of one connector. Its content credential (CMS-A: the MCP key; CMS-B: the
 * application password) is sealed under `connector.<connector>.<id>.credential`.
 */
export const connectorInstanceSchema = new Schema(
  {
    _id: { type: String, required: true },
    connector: { type: String, required: true },
    name: { type: String, required: true },
    siteUrl: { type: String, required: true },
    username: { type: String, default: null },
    credentialSealed: { type: String, required: true },
  },
  { timestamps: true, collection: 'connector_instances' },
);
connectorInstanceSchema.index({ connector: 1 });

export type ConnectorInstanceRecord = InferSchemaType<typeof connectorInstanceSchema>;
