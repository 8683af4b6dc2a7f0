import { z } from 'zod';
import { requiredText } from '../schemas/fields.ts';
import { mcpServerAgents, mcpServerAuth, mcpServerClientId, mcpServerClientSecret, mcpServerId, mcpServerIssuer, mcpServerName, mcpServerToken, mcpServerUrl } from '../schemas/mcp-servers.ts';

/** Revoke one connected MCP app (its grant). */
export const revokeConnectionForm = z.object({
  intent: z.literal('revoke'),
  grantId: requiredText('the connection', 100),
});

/** Register an MCP server for agents' tools; `mcp.servers.register` takes these fields, its credentials as one `auth`. */
export const registerServerForm = z.object({
  intent: z.literal('register'),
  id: mcpServerId,
  name: mcpServerName,
  url: mcpServerUrl,
  auth: mcpServerAuth.default('none'),
  token: mcpServerToken,
  clientId: mcpServerClientId,
  clientSecret: mcpServerClientSecret,
  issuer: mcpServerIssuer,
  agents: mcpServerAgents,
});

/** Change a registered server: empty credentials keep the sealed ones. */
export const editServerForm = registerServerForm.extend({ intent: z.literal('edit') });

/** Ask a server for its tools again. */
export const refreshServerForm = z.object({ intent: z.literal('refresh'), id: mcpServerId });

/** Remove a server and its sealed credentials. */
export const removeServerForm = z.object({ intent: z.literal('remove'), id: mcpServerId });
