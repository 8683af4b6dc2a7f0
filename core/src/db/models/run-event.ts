import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One event of a run's log, stored in the `runs` collection under `~e/<runId>/<seq as 12 digits>`
 * (run-keys.ts): ids sort in sequence order, so the unique primary key alone keeps one event per
 * sequence number and serves every read (a replay is an `_id` range); no other index is kept.
 */
export const runEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    seq: { type: Number, required: true },
    kind: { type: String, required: true },
    payload: { type: Schema.Types.Mixed, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'runs', minimize: false, versionKey: false },
);

export type RunEventRecord = InferSchemaType<typeof runEventSchema>;
