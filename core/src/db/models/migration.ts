import { Schema } from 'mongoose';

/** One row per one-time data change already applied to this database (`_id` is its name). */
export const migrationSchema = new Schema(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'migrations', versionKey: false },
);
