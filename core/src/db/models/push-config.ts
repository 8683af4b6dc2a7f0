import { Schema, type InferSchemaType } from 'mongoose';

/**
 * Where a client wants a task's updates POSTed (an A2A push notification config). `_id` is the
 * service's own id; `configId` is the one the client names it by (its own, or one given at
 * creation), unique per task. `owner` is the actor that created it: only it reads, lists or
 * deletes it. The token and the credentials are sealed (`push.<_id>.token`, `push.<_id>.credentials`).
 * Where its task's events stand is kept apart, in `push_cursors`, while any may still come.
 */
export const pushConfigSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    configId: { type: String, required: true },
    owner: { type: String, required: true },
    url: { type: String, required: true },
    /** The A2A version it was set in: the notification body is that version's shape. */
    protocol: { type: String, enum: ['1.0', '0.3'], required: true },
    tokenSealed: { type: String, default: null },
    scheme: { type: String, default: null },
    credentialsSealed: { type: String, default: null },
    createdAt: { type: Date, required: true },
  },
  { collection: 'push_configs', versionKey: false },
);
pushConfigSchema.index({ runId: 1, configId: 1 }, { name: 'run_config', unique: true });

export type PushConfigRecord = InferSchemaType<typeof pushConfigSchema>;
