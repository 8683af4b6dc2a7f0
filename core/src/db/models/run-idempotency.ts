import { Schema } from 'mongoose';

/** `_id` = `<actorId>\u0000<kind>\u0000<key>` → the run a retried request must get back. */
export const runIdempotencySchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
  },
  { timestamps: true, collection: 'run_idempotency', versionKey: false },
);
