import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A change the widget applied to a CMS item, kept so that its Undo reverts exactly this diff and
 * nothing else. `_id` is the SHA-256 of the undo token with the connector and instance it was
 * issued for (core/src/widget/widget-edits.ts): the token itself is never stored, and a token
 * presented for another instance names no row. Read by `_id` only; expired rows go by the TTL
 * index where the server has TTL indexes, else by the background sweep (`expiresAt` range).
 */
export const widgetEditSchema = new Schema(
  {
    _id: { type: String, required: true },
    connector: { type: String, required: true },
    instanceId: { type: String, required: true },
    itemId: { type: String, required: true },
    /** The diff as read back after the edit: the values Undo writes back (`before`) and expects to find (`after`). */
    fields: {
      type: [new Schema({ field: { type: String, required: true }, before: { type: String, default: '' }, after: { type: String, default: '' } }, { _id: false })],
      required: true,
    },
    /** What the edit left beyond its fields, checked again before Undo writes: CMS-B the post's status; CMS-A the draft's status and revision ids. */
    state: {
      type: new Schema({ status: { type: String, required: true }, revisionId: { type: Number, default: null }, publishedRevisionId: { type: Number, default: null } }, { _id: false }),
      required: true,
    },
    /** Who made the edit (the widget route's actor id, `widget:<connector>:<instance>`). */
    actor: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    /** Set once, by the one Undo that went through. */
    undoneAt: { type: Date, default: null },
    /** Bumped when an Undo was refused or failed after its claim, so the next click claims afresh. */
    attempt: { type: Number, default: 0 },
  },
  { collection: 'widget_edits', versionKey: false },
);
widgetEditSchema.index({ expiresAt: 1 }, { name: 'expires', expireAfterSeconds: 0 });

export type WidgetEditRecord = InferSchemaType<typeof widgetEditSchema>;
