import { Schema, type InferSchemaType } from 'mongoose';
import { jobStepSchema } from './job-step.ts';

/**
 * One import of an extension package (from GitHub, a zip or a chat draft), or one manual update
 * of an imported extension: its steps, and what it staged while it waits for the admin.
 */
export const importJobSchema = new Schema(
  {
    source: { type: String, enum: ['github', 'zip', 'chat'], required: true },
    /** Repository address, or the uploaded file's name. */
    url: { type: String },
    ref: { type: String },
    folder: { type: String },
    updatePolicy: { type: String, enum: ['manual', 'auto'], required: true },
    /** Set when the job updates an imported extension instead of installing a new one. */
    targetExtensionId: { type: Schema.Types.ObjectId },
    state: { type: String, enum: ['running', 'awaiting-confirmation', 'succeeded', 'failed', 'discarded'], required: true },
    steps: [jobStepSchema],
    /** What is shown and installed on confirmation: the package's files, its license, the commit. */
    staged: { type: Schema.Types.Mixed },
    error: { type: Schema.Types.Mixed },
    extensionId: { type: Schema.Types.ObjectId },
    actorId: { type: String, required: true },
  },
  { timestamps: true, collection: 'import_jobs', minimize: false },
);

// The jobs page filtered by state, newest first.
importJobSchema.index({ state: 1, _id: -1 }, { name: 'state_newest' });

export type ImportJobRecord = InferSchemaType<typeof importJobSchema>;
