import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AgentAccessActor } from '../auth/index.ts';
import type { PrimitiveRegistry } from '../connectors/index.ts';
import { z } from 'zod';
import { DomainError, toDomainError } from '../errors/index.ts';
import type { Logger } from '../log/index.ts';

/**
 * An MCP server exposing every primitive of the registry as a tool, for one authenticated
 * actor. The gate runs inside each call, so grants are checked per call, not per session. A
 * refused or failed call is a tool error (`isError: true`) whose text says why, never data.
 */
export function buildMcpServer(deps: {
  registry: PrimitiveRegistry;
  /**
   * How to resolve the caller afresh for each call (stdio: the client's current grants). Without
   * it, the caller is the request's auth info (`extra.actor`, set by the HTTP handler).
   */
  actor?: () => Promise<AgentAccessActor>;
  version: string;
  logger: Logger;
}): McpServer {
  const actorOf = async (extra: { authInfo?: { extra?: Record<string, unknown> } }): Promise<AgentAccessActor> => {
    if (deps.actor) return deps.actor();
    const actor = extra.authInfo?.extra?.actor as AgentAccessActor | undefined;
    if (!actor) throw new DomainError('UNAUTHENTICATED', 'The request carries no authenticated caller');
    return actor;
  };
  const server = new McpServer({ name: 'service-connectors', version: deps.version });
  for (const primitive of deps.registry.list()) {
    server.registerTool(
      primitive.name,
      {
        title: primitive.title ?? primitive.name,
        description: primitive.description,
        inputSchema: primitive.input,
        // Results travel as `{ result }` (some are lists); the schema says what `result` holds.
        ...(primitive.output ? { outputSchema: z.object({ result: primitive.output }) } : {}),
        annotations: primitive.annotations,
      },
      async (args: unknown, extra) => {
        try {
          const result = await deps.registry.call(await actorOf(extra), primitive.name, args);
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
