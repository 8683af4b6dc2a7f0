import { Schema, type InferSchemaType } from 'mongoose';

/** The sync history of an imported extension: every update, and every refusal with its reason. */
export const importSyncEventSchema = new Schema(
  {
    extensionId: { type: Schema.Types.ObjectId, required: true },
    outcome: { type: String, enum: ['installed', 'updated', 'review-failed', 'license-changed', 'failed'], required: true },
    /** `auto` for the background sync, `manual` for an admin's import or update. */
    trigger: { type: String, enum: ['auto', 'manual'], required: true },
    fromVersion: { type: String },
    toVersion: { type: String },
    commitSha: { type: String },
    reason: { type: String },
    actorId: { type: String, required: true },
  },
  { timestamps: true, collection: 'import_sync_events' },
);
importSyncEventSchema.index({ extensionId: 1, createdAt: -1 });
// The jobs page filtered by outcome (a state stands for some outcomes), newest first.
importSyncEventSchema.index({ outcome: 1, _id: -1 }, { name: 'outcome_newest' });

export type ImportSyncEventRecord = InferSchemaType<typeof importSyncEventSchema>;
