import { z } from 'zod';
import { httpUrl, listOf, optionalText, requiredText, slugId } from './fields.ts';

/** The fields of an MCP server an admin registers for agents' tools, shared by the form and `mcp.servers.register`. */
export const mcpServerId = slugId('the server id');
export const mcpServerName = requiredText('a name', 100);
export const mcpServerUrl = httpUrl('the server’s MCP endpoint URL');
export const mcpServerAuth = z.enum(['none', 'bearer', 'oauth']);
export const mcpServerToken = optionalText('the bearer token', 4000);
export const mcpServerClientId = optionalText('the OAuth client id', 200);
export const mcpServerClientSecret = optionalText('the OAuth client secret', 500);
export const mcpServerIssuer = optionalText('the OAuth issuer', 500);
/** The agents that may use its tools: `*`, or package names. */
export const mcpServerAgents = listOf('agents', 100, 214);
