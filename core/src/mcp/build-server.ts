import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentAccessActor } from '../auth/index.ts';
import type { PrimitiveRegistry } from '../connectors/index.ts';
import { toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

/**
 * An MCP server exposing every primitive of the registry as a tool, for one authenticated
 * actor. The gate runs inside each call, so grants are checked per call, not per session. A
 * refused or failed call is a tool error (`isError: true`) whose text says why, never data.
 */
export function buildMcpServer(deps: {
  registry: PrimitiveRegistry;
  /** The caller, or how to resolve it afresh for each call (stdio: the client's current grants). */
  actor: AgentAccessActor | (() => Promise<AgentAccessActor>);
  version: string;
  logger: Logger;
}): McpServer {
  const actor = typeof deps.actor === 'function' ? deps.actor : () => Promise.resolve(deps.actor as AgentAccessActor);
  const server = new McpServer({ name: 'service-connectors', version: deps.version });
  for (const primitive of deps.registry.list()) {
    server.registerTool(
      primitive.name,
      { title: primitive.title ?? primitive.name, description: primitive.description, inputSchema: primitive.input, annotations: primitive.annotations },
      async (args: unknown) => {
        try {
          const result = await deps.registry.call(await actor(), primitive.name, args);
          return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: { result } as Record<string, unknown> };
        } catch (error) {
          const domain = toDomainError(error, deps.logger);
          const body = domain.toPublicJSON();
          return { isError: true, content: [{ type: 'text' as const, text: `${body.code}: ${body.message}` }] };
        }
      },
    );
  }
  return server;
}
