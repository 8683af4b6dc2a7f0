import { Schema, type InferSchemaType } from 'mongoose';

/**
 * One counted request in a rate-limit window shared by every process on the database
 * (core/src/db/window-counters.ts). A window is `<key digest>:<length>#<generation>`; `_id` is
 * `<window>/s/<slot>` for a counted request,
 * `<window>/r/<slot>` for one taken back, `<window>/refused/<count>` for the first refusal at a
 * count. Only ever inserted, never updated: FerretDB 1.24 loses concurrent `$inc`s (ADR 0030).
 * Read by `_id` ranges; expired rows go by the TTL index where the server has TTL indexes, else by
 * the background sweep (`expiresAt` range).
 */
export const rateLimitSlotSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** When the window the row counts in opened (its first request). */
    start: { type: Date, required: true },
    /** When that window closes. */
    expiresAt: { type: Date, required: true },
  },
  { collection: 'rate_limit_slots', versionKey: false },
);
rateLimitSlotSchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 });

export type RateLimitSlotRecord = InferSchemaType<typeof rateLimitSlotSchema>;
