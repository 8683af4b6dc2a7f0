import { Schema, type InferSchemaType } from 'mongoose';

/**
 * Who works on a run (`_id` = the run id), present while the run is submitted or working: the
 * recovery pass reads this small collection whole. `renewedAt` is the database server's time of
 * the holder's last renewal (`$currentDate`), so expiry never compares two hosts' clocks.
 * `generation` counts holders; the event log records it too, and that is what fences writes.
 */
export const runLeaseSchema = new Schema(
  {
    _id: { type: String, required: true },
    owner: { type: String, default: null },
    generation: { type: Number, required: true },
    renewedAt: { type: Date, required: true },
  },
  { collection: 'run_leases', versionKey: false },
);

export type RunLeaseRecord = InferSchemaType<typeof runLeaseSchema>;
