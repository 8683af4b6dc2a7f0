import { Schema, type InferSchemaType } from 'mongoose';

/**
 * Who works on a run, under `~l/<runId>` in the `runs` collection (run-keys.ts), apart from the run document: FerretDB 1.24 writes a whole document
 * back on every update, so a lease renewal on the run row could undo a concurrent status write.
 */
export const runLeaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    owner: { type: String, default: null },
    until: { type: Date, default: null },
    /** Counts takeovers; a takeover is won by claiming `run-lease:<id>:<generation>` (db/claims.ts). */
    generation: { type: Number, default: 0 },
  },
  { collection: 'runs', versionKey: false },
);

export type RunLeaseRecord = InferSchemaType<typeof runLeaseSchema>;
