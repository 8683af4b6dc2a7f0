import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AgentAccessActor } from '../auth/index.ts';
import type { PrimitiveRegistry } from '../connectors/index.ts';
import { DomainError } from '../errors/index.ts';
import { bearerToken, json } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { buildMcpServer } from './build-server.ts';

/**
 * `/api/mcp` and the standalone server's HTTP mode: Streamable HTTP, stateless (a server and a
 * transport per request), behind the OAuth JWT of the A2A seam. A widget API key is not a JWT
 * and fails verification like any other bad token.
 */
export function createMcpHttpHandler(deps: { registry: PrimitiveRegistry; verifyToken: (token: string) => Promise<AgentAccessActor>; version: string; logger: Logger }) {
  return async (request: Request): Promise<Response> => {
    let actor: AgentAccessActor;
    try {
      const token = bearerToken(request);
      if (!token) throw new DomainError('UNAUTHENTICATED', 'A bearer access token is required');
      actor = await deps.verifyToken(token);
    } catch (error) {
      const message = error instanceof DomainError && error.code === 'UNAUTHENTICATED' ? error.message : 'Invalid or expired access token';
      return json({ error: 'invalid_token', error_description: message }, { status: 401, headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="${message}"` } });
    }
    const server = buildMcpServer({ registry: deps.registry, actor, version: deps.version, logger: deps.logger });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      // Stateless: nothing outlives the request.
      void server.close().catch(() => undefined);
    }
  };
}
