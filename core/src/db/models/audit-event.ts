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

export type AuditEventRecord = InferSchemaType<typeof auditEventSchema>;
