import { Schema, type InferSchemaType } from 'mongoose';

/** A sign-in session. `_id` is the SHA-256 of the cookie's session id, so a database read cannot replay sessions. */
export const sessionSchema = new Schema(
  {
    _id: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true, ref: 'User' },
    expiresAt: { type: Date, required: true },
    lastSeenAt: { type: Date, required: true },
    userAgent: { type: String },
  },
  { timestamps: true, collection: 'sessions' },
);
sessionSchema.index({ userId: 1 });
// Not a TTL index: FerretDB does not implement them. Expired rows are swept by the session store.
sessionSchema.index({ expiresAt: 1 });

export type SessionRecord = InferSchemaType<typeof sessionSchema>;
