import { Schema, type InferSchemaType } from 'mongoose';

/** A registry destination; its tokens are sealed under `destination.<id>.publish-token` / `.read-token`. */
export const registryDestinationSchema = new Schema(
  {
    _id: { type: String, required: true },
    visibility: { type: String, enum: ['public', 'private'], required: true },
    registryUrl: { type: String, required: true },
    publishTokenSealed: { type: String, default: null },
    readTokenSealed: { type: String, default: null },
  },
  { timestamps: true, collection: 'registry_destinations' },
);

export type RegistryDestinationRecord = InferSchemaType<typeof registryDestinationSchema>;
