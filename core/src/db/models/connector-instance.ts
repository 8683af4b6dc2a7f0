import { Schema, type InferSchemaType } from 'mongoose';

/**
 * A configured CMS site of one connector. Its content credential (CMS-A: the MCP key; CMS-B: the
 * application password) is sealed under `connector.<connector>.<id>.credential`.
 */
export const connectorInstanceSchema = new Schema(
  {
    _id: { type: String, required: true },
    connector: { type: String, required: true },
    name: { type: String, required: true },
    siteUrl: { type: String, required: true },
    username: { type: String, default: null },
    credentialSealed: { type: String, required: true },
    /** CMS-B: the secret notifications to the plugin are signed with, sealed under `connector.cms_b.<id>.webhook-secret`. */
    webhookSecretSealed: { type: String, default: null },
    /**
     * The widget's configuration, stored under the spec's key (`cms_a_widget_auth` /
     * `cms_b_widget_auth`): the SHA-256 of the widget API key (never the key), the origins
     * allowed to call the stream route, and how many recent turns reach the LLM.
     */
    widget: {
      type: new Schema(
        {
          keyHash: { type: String, default: null },
          keyPrefix: { type: String, default: null },
          /** When the last key was revoked; cleared when a new one is generated. */
          revokedAt: { type: Date, default: null },
          allowedOrigins: { type: [String], default: [] },
          historyTurns: { type: Number, default: 10 },
          /** The agent whose skills the widget's turn may call as tools (none: only the content editor). */
          assistantAgent: { type: String, default: null },
        },
        { _id: false },
      ),
      default: () => ({}),
    },
  },
  { timestamps: true, collection: 'connector_instances' },
);
connectorInstanceSchema.index({ connector: 1 });

export type ConnectorInstanceRecord = InferSchemaType<typeof connectorInstanceSchema>;
