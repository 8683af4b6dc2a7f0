import { Schema, type InferSchemaType } from 'mongoose';

export const auditEventSchema = new Schema(
  {
    actorType: { type: String, required: true },
    actorId: { type: String, required: true },
    action: { type: String, required: true },
    resourceType: { type: String, required: true },
    resourceId: { type: String, required: false },
    details: { type: Schema.Types.Mixed },
    at: { type: Date, required: true },
  },
  { collection: 'audit_events', minimize: false },
);
// The audit page narrowed to one actor or one action, newest first (MongoDB; ADR 0004).
auditEventSchema.index({ actorId: 1, _id: -1 });
auditEventSchema.index({ action: 1, _id: -1 });

export type AuditEventRecord = InferSchemaType<typeof auditEventSchema>;
