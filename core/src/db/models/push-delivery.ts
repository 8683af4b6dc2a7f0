import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The push outbox: one notification to send, `_id` = `<push config _id>/<event seq, 12 digits>`,
 * so each event is enqueued for a config exactly once whoever enqueues it, and a config's
 * deliveries sort in the order of its run's events. `body` is the notification as it is POSTed.
 * Deleted once the receiver took it; after the last attempt it stays `failed` (for the
 * operator) until its config goes (a config's rows are the `_id` range under its prefix).
 * `leaseUntil`: a process is sending it until then.
 */
export const pushDeliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    configRef: { type: String, required: true },
    runId: { type: String, required: true },
    seq: { type: Number, required: true },
    body: { type: String, required: true },
    state: { type: String, enum: ['pending', 'failed'], required: true },
    attempts: { type: Number, required: true },
    nextAttemptAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    /** The last failure, as the HTTP status or the outbound client's reason: never the body or a header. */
    lastError: { type: String, default: null },
  },
  { collection: 'push_deliveries', versionKey: false },
);
pushDeliverySchema.index({ state: 1, _id: 1 }, { name: 'state_key' });

export type PushDeliveryRecord = InferSchemaType<typeof pushDeliverySchema>;
