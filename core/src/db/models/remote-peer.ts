import { Schema, type InferSchemaType } from 'mongoose';

/** Another instance we call over A2A; its client secret is sealed under `peer.<id>.client-secret`. */
export const remotePeerSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    baseUrl: { type: String, required: true },
    clientId: { type: String, required: true },
    clientSecretSealed: { type: String, required: true },
    createdBy: { type: String, required: true },
  },
  { timestamps: true, collection: 'remote_peers' },
);

export type RemotePeerRecord = InferSchemaType<typeof remotePeerSchema>;
