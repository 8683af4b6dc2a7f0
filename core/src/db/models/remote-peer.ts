import { Schema, type InferSchemaType } from 'mongoose';

/** Another instance we call over A2A; its client secret is sealed under `peer.<id>.client-secret`. */
export const remotePeerSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    baseUrl: { type: String, required: true },
    clientId: { type: String, required: true },
    clientSecretSealed: { type: String, required: true },
    /** `auto`: A2A v1.0 when the peer's card offers it, else v0.3; `0.3`: always v0.3. */
    protocol: { type: String, enum: ['auto', '0.3'], default: 'auto' },
    createdBy: { type: String, required: true },
    /** When a call to it last got an answer (written at most once a minute while nothing changes). */
    lastContactAt: { type: Date },
    /** Why the last call that failed failed, and when; cleared by the next answer. */
    lastError: { type: new Schema({ at: { type: Date, required: true }, message: { type: String, required: true } }, { _id: false }), default: null },
  },
  { timestamps: true, collection: 'remote_peers' },
);

export type RemotePeerRecord = InferSchemaType<typeof remotePeerSchema>;
