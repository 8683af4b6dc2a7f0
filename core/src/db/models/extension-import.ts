import { Schema, type InferSchemaType } from 'mongoose';

/**
 * Where an imported extension came from and how it stays in sync: one row per imported
 * extension. The background sync claims each due time once (db/claims.ts), so each check runs once.
 */
export const extensionImportSchema = new Schema(
  {
    extensionId: { type: Schema.Types.ObjectId, required: true },
    packageName: { type: String, required: true },
    source: { type: String, enum: ['github', 'zip', 'chat'], required: true },
    url: { type: String },
    ref: { type: String },
    folder: { type: String },
    /** The commit the installed version was built from (GitHub imports). */
    commitSha: { type: String },
    /** The license text the installed version carried (sha256), so a changed text is acknowledged again. */
    licenseTextHash: { type: String, default: null },
    /** A commit whose review failed; not downloaded again until the ref moves on. */
    rejectedCommitSha: { type: String },
    updatePolicy: { type: String, enum: ['manual', 'auto'], required: true },
    nextSyncAt: { type: Date, default: null },
  },
  { timestamps: true, collection: 'extension_imports' },
);
extensionImportSchema.index({ extensionId: 1 }, { unique: true });
extensionImportSchema.index({ updatePolicy: 1, nextSyncAt: 1 });

export type ExtensionImportRecord = InferSchemaType<typeof extensionImportSchema>;
