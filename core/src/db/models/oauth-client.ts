import { Schema, type InferSchemaType } from 'mongoose';

export const A2A_PERMISSIONS = ['list', 'read', 'execute'] as const;
export type A2aPermission = (typeof A2A_PERMISSIONS)[number];

/** An OAuth 2.0 client (another instance or an integration). Only a hash of its secret is kept. */
export const oauthClientSchema = new Schema(
  {
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    secretHash: { type: String, required: true },
    /** Package names this client may use, or "*" for every agent. */
    allowedAgents: { type: [String], default: [] },
    permissions: { type: [String], enum: A2A_PERMISSIONS, default: [] },
    /** MCP primitives (names, connector names, or "*") this client may call. */
    allowedPrimitives: { type: [String], default: [] },
    revokedAt: { type: Date, default: null },
    secretRotatedAt: { type: Date, required: true },
    createdBy: { type: String, required: true },
  },
  { timestamps: true, collection: 'oauth_clients' },
);
oauthClientSchema.index({ clientId: 1 }, { unique: true });

export type OauthClientRecord = InferSchemaType<typeof oauthClientSchema>;
