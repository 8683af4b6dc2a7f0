import { Schema, type InferSchemaType } from 'mongoose';

/**
 * The marketplace's ordered key index over `extensions`: one row per record, `_id` =
 * `public/<kind>/<packageName>` or `private/<scope>/<kind>/<packageName>`, so the rows a reader
 * may see form a few `_id` ranges in package-name order, served by the primary key on every
 * server. Written by the extension writer after each record write; readers re-check every row
 * against its record (a stale row is skipped and removed), so the records stay the truth.
 */
export const extensionListingSchema = new Schema(
  {
    _id: { type: String, required: true },
    extensionId: { type: Schema.Types.ObjectId, required: true },
    packageName: { type: String, required: true },
    searchText: { type: String, default: '' },
  },
  { collection: 'extension_listing', versionKey: false },
);

export type ExtensionListingRecord = InferSchemaType<typeof extensionListingSchema>;
