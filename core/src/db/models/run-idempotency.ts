import { Schema } from 'mongoose';

/** `_id` = `~i/<kind>:<digest>` (run-keys.ts), in the `runs` collection → the run a retried request must get back. */
export const runIdempotencySchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
  },
  { timestamps: true, collection: 'runs', versionKey: false },
);
