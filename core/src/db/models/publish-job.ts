import { Schema, type InferSchemaType } from 'mongoose';
import { jobStepSchema } from './job-step.ts';

/** Progress of one publish or promote, so the UI can follow it live and after a reload. */
export const publishJobSchema = new Schema(
  {
    extensionId: { type: Schema.Types.ObjectId, required: true },
    packageName: { type: String, required: true },
    operation: { type: String, enum: ['publish', 'promote'], required: true },
    destination: { type: String, enum: ['public', 'private'], required: true },
    state: { type: String, enum: ['running', 'succeeded', 'failed'], required: true },
    steps: [jobStepSchema],
    error: { type: Schema.Types.Mixed },
    result: { type: Schema.Types.Mixed },
    actorId: { type: String, required: true },
  },
  { timestamps: true, collection: 'publish_jobs' },
);
publishJobSchema.index({ extensionId: 1, createdAt: -1 });
// The jobs page filtered by state, newest first.
publishJobSchema.index({ state: 1, _id: -1 }, { name: 'state_newest' });

export type PublishJobRecord = InferSchemaType<typeof publishJobSchema>;
