import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One-time claims, won by inserting a row under the claim's key: the unique `_id` is the only
 * compare-and-set FerretDB 1.24 performs atomically (its updates and findAndModify re-check no
 * filter, so two processes can both "win" a conditional update).
 */
export const claimSchema = new Schema(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'claims', versionKey: false },
);
claimSchema.index({ at: 1 });

export type ClaimRecord = InferSchemaType<typeof claimSchema>;
