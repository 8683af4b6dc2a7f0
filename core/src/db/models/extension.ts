import { Schema, type InferSchemaType } from 'mongoose';

const originSchema = new Schema(
  {
    packageName: { type: String, required: true },
    version: { type: String, required: true },
    destinationId: { type: String, default: null },
    scope: { type: String, required: true },
    visibility: { type: String, enum: ['public', 'private'], required: true },
    registryUrl: { type: String, default: '' },
    importedFrom: {
      type: new Schema(
        {
          source: { type: String, enum: ['github', 'zip', 'chat'], required: true },
          url: String,
          license: String,
          licenseAcknowledged: Boolean,
          updatePolicy: { type: String, enum: ['manual', 'auto'], required: true },
          lastSyncedAt: String,
        },
        { _id: false },
      ),
      required: false,
    },
  },
  { _id: false },
);

/**
 * An extension (agent template or skill package) known to this instance: authored here, or
 * pulled from a registry. Read only through core/src/extensions (the visibility filter).
 */
export const extensionSchema = new Schema(
  {
    packageName: { type: String, required: true },
    kind: { type: String, enum: ['agent', 'skill'], required: true },
    version: { type: String, required: true },
    /** draft: authored here, not yet published; published: authored and published; installed: pulled. */
    status: { type: String, enum: ['draft', 'published', 'installed'], required: true },
    active: { type: Boolean, default: true },
    /** The authored files, kept verbatim so compile and review can be re-run. */
    source: { manifest: { type: Schema.Types.Mixed, required: true }, flow: { type: Schema.Types.Mixed, required: true } },
    compiled: { type: Schema.Types.Mixed, required: true },
    /** Lower-cased name, description and tags, for marketplace search. */
    searchText: { type: String, default: '' },
    integrity: { type: String },
    origin: { type: originSchema, required: true },
  },
  { timestamps: true, collection: 'extensions', minimize: false },
);
extensionSchema.index({ packageName: 1 }, { unique: true });
extensionSchema.index({ 'origin.visibility': 1, packageName: 1 });
extensionSchema.index({ 'origin.scope': 1, 'origin.visibility': 1, packageName: 1 });

export type ExtensionRecord = InferSchemaType<typeof extensionSchema>;
