import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The push outbox: one notification still to send, `_id` = `<push config _id>/<event seq, 12
 * digits>`, so each event is enqueued for a config exactly once whoever enqueues it, and the
 * collection in `_id` order is every config's notifications in the order of its task's events.
 * `body` is the notification as it is POSTed. A row is deleted once the receiver took it, or
 * once it is given up (logged). A config's rows are the `_id` range under its prefix.
 * `leaseUntil`: a process is sending it until then.
 */
export const pushDeliverySchema = new Schema(
  {
    _id: { type: String, required: true },
    configRef: { type: String, required: true },
    runId: { type: String, required: true },
    seq: { type: Number, required: true },
    body: { type: String, required: true },
    attempts: { type: Number, required: true },
    nextAttemptAt: { type: Date, required: true },
    leaseUntil: { type: Date, required: true },
    /** The last failure, as the HTTP status or the outbound client's reason: never the body or a header. */
    lastError: { type: String, default: null },
  },
  { collection: 'push_deliveries', versionKey: false },
);

export type PushDeliveryRecord = InferSchemaType<typeof pushDeliverySchema>;
