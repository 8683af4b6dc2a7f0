import { Schema, type InferSchemaType } from 'mongoose';

/** How long a retried request (same Idempotency-Key or messageId) gets the run it created back. */
export const RUN_KEY_TTL_MS = 24 * 3_600_000;

/**
 * An idempotency key that created a run: `_id` = `<kind>:<SHA-256 of [actor, key]>`. Inserted
 * before the run, so a taken key stops a duplicate. Expires after a day: by the TTL index where
 * the server has TTL indexes, else by the background sweep (`expiresAt` range).
 */
export const runKeySchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'run_keys', versionKey: false },
);
runKeySchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 });
runKeySchema.index({ runId: 1 }, { name: 'run' });

export type RunKeyRecord = InferSchemaType<typeof runKeySchema>;
