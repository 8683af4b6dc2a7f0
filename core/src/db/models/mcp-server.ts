import { Schema, type InferSchemaType } from 'mongoose';

/** One tool an MCP server listed, as agents' models are offered it. */
const listedToolSchema = new Schema(
  {
    name: { type: String, required: true },
    title: { type: String },
    description: { type: String, default: '' },
    /** The tool's input JSON Schema, stored as JSON text (MCP schemas may hold `$`-keys MongoDB refuses as field names). */
    inputSchema: { type: String, required: true },
    readOnlyHint: { type: Boolean },
    destructiveHint: { type: Boolean },
  },
  { _id: false },
);

/**
 * An external MCP server an admin registered for agents' tools (Streamable HTTP). A bearer token
 * is sealed under `mcp-server.<id>.bearer`, an OAuth client secret under `mcp-server.<id>.client-secret`.
 * `agents` names the agents that may use its tools (`*`: every agent).
 */
export const mcpServerSchema = new Schema(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    url: { type: String, required: true },
    auth: { type: String, enum: ['none', 'bearer', 'oauth'], required: true },
    bearerSealed: { type: String, default: null },
    clientId: { type: String, default: null },
    clientSecretSealed: { type: String, default: null },
    /** The OAuth authorization server the client credentials were issued by (they are presented to it alone). */
    issuer: { type: String, default: null },
    agents: { type: [String], default: [] },
    tools: { type: [listedToolSchema], default: [] },
    /** When the server last listed its tools; null before it first answered. */
    listedAt: { type: Date, default: null },
    lastError: { type: new Schema({ at: { type: Date, required: true }, message: { type: String, required: true } }, { _id: false }), default: null },
    createdBy: { type: String, required: true },
  },
  { timestamps: true, collection: 'mcp_servers' },
);

export type McpServerRecord = InferSchemaType<typeof mcpServerSchema>;
