import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One event of a run's log. `_id` is `<runId>/<seq as 12 digits>`: ids sort in sequence order and
 * any single event is a primary-key lookup, so replaying the few events a client missed costs the
 * same however long the log is. `runId` + `seq` are also indexed for range reads on MongoDB.
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
  { collection: 'run_events', minimize: false, versionKey: false },
);
runEventSchema.index({ runId: 1, seq: 1 }, { unique: true });

export const runEventId = (runId: string, seq: number) => `${runId}/${String(seq).padStart(12, '0')}`;

export type RunEventRecord = InferSchemaType<typeof runEventSchema>;
