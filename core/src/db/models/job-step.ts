import { Schema } from 'mongoose';

/** One step of a background job as the UI lists it (publish, promote, import). */
export const jobStepSchema = new Schema(
  {
    id: { type: String, required: true },
    label: { type: String, required: true },
    state: { type: String, enum: ['pending', 'running', 'done', 'failed', 'waiting'], required: true },
    detail: { type: String },
  },
  { _id: false },
);
