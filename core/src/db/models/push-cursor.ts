import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The working set of push notifications: one row per config whose task may still have events to
 * send (`_id` = the config's `_id`), deleted once the task's terminal event is enqueued or the
 * config is. The dispatcher's pass reads this small collection whole, like `run_leases`.
 * `enqueuedSeq`: the run's events up to this number are in `push_deliveries` for this config (or
 * were, and are sent).
 */
export const pushCursorSchema = new Schema(
  {
    _id: { type: String, required: true },
    runId: { type: String, required: true },
    contextId: { type: String, required: true },
    /** The A2A version the config was set in: the notification body is that version's shape. */
    protocol: { type: String, enum: ['1.0', '0.3'], required: true },
    enqueuedSeq: { type: Number, required: true },
    /**
     * Until when one process has the cursor to enqueue its next events (absent or past: free).
     * Taken as read, like an outbox row's lease: a pass that read the cursor before another moved
     * it cannot enqueue again what the other has enqueued and perhaps sent and deleted already.
     */
    claimUntil: { type: Date, required: false },
  },
  { collection: 'push_cursors', versionKey: false },
);

export type PushCursorRecord = InferSchemaType<typeof pushCursorSchema>;
