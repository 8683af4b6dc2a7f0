import { Schema, type InferSchemaType } from 'mongoose';

/** `<runId>/<seq as 12 digits>`: a run's events sort in sequence order, so a replay is one `_id` range. */
export const runEventId = (runId: string, seq: number) => `${runId}/${String(seq).padStart(12, '0')}`;

/** The events of `runId` after `afterSeq`, as an `_id` range (they end before `<runId>0`, since '0' sorts after '/'). */
export const runEventsAfter = (runId: string, afterSeq: number) => ({ $gt: runEventId(runId, afterSeq), $lt: `${runId}0` });

/**
 * One event of a run's log. The unique `_id` is the only arbiter of who writes next: an append
 * inserts at the sequence number after the last one its writer has read, so a run's events are
 * dense, and two writers that read the same tail cannot both store (ADR 0019). Each row carries
 * the run's state after it and the lease generation it was written under, so the last row alone
 * tells a writer whether it may go on.
 */
export const runEventSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    seq: { type: Number, required: true },
    /** The RunEvent's `type`. */
    type: { type: String, required: true },
    /** The RunEvent as JSON text. */
    event: { type: String, required: true },
    /** The run's state after this event. */
    state: { type: String, required: true },
    /** The lease generation in force from this event on. */
    generation: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'run_events', minimize: false, versionKey: false },
);

export type RunEventRecord = InferSchemaType<typeof runEventSchema>;
