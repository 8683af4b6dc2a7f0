import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The working set of the recovery pass: one row per run not yet finished, inserted when the run
 * is created and removed at its terminal event. The pass reads this small collection (and then
 * the runs it names by `_id`) instead of filtering `runs`, which grows with history.
 */
export const activeRunSchema = new Schema(
  {
    _id: { type: String, required: true },
    since: { type: Date, required: true },
  },
  { collection: 'active_runs', versionKey: false },
);

export type ActiveRunRecord = InferSchemaType<typeof activeRunSchema>;
