import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { AgentAccessActor } from '../auth/index.ts';
import { bearerChallenge } from '../auth/oauth/index.ts';
import type { PrimitiveRegistry } from '../connectors/index.ts';
import { DomainError, ERROR_TABLE, toDomainError } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited, unavailableHeaders, withHeaders } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { hostnameOf } from './allowed-hosts.ts';
import { buildMcpServer } from './build-server.ts';

/** A tools/call body (media uploads travel base64 in it) may be this large. */
export const MAX_MCP_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Browser-based MCP clients call from their own origin. The endpoint takes a bearer token and no
 * cookie, so a page has no ambient authority here: any origin may call it and read the answer,
 * the 401 challenge (`WWW-Authenticate`) included, which a client needs to find the authorization
 * server. The Host check still runs first (DNS rebinding).
 */
const CORS_HEADERS: Readonly<Record<string, string>> = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'www-authenticate, mcp-session-id, mcp-protocol-version' };

function preflight(): Response {
  return new Response(null, { status: 204, headers: { ...CORS_HEADERS, 'access-control-allow-methods': 'POST', 'access-control-allow-headers': 'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id', 'access-control-max-age': '600' } });
}

const rpcError = (status: number, code: number, message: string, headers?: Record<string, string>) => json({ jsonrpc: '2.0', id: null, error: { code, message } }, { status, ...(headers ? { headers } : {}) });

/**
 * `/api/mcp` and the standalone server's HTTP mode: Streamable HTTP, stateless (a server and a
 * transport per request), behind the OAuth JWT of the A2A seam. A widget API key is not a JWT
 * and fails verification like any other bad token.
 */
export function createMcpHttpHandler(deps: {
  registry: PrimitiveRegistry;
  /** Checks a token for this endpoint's resource: a machine client's token, or one bound to `resource`. */
  verifyToken: (token: string, resource: string) => Promise<AgentAccessActor>;
  /** This endpoint as an OAuth protected resource (RFC 8707/9728): its URL. */
  resource: () => string;
  version: string;
  logger: Logger;
  /** Host names (no port) requests may name; anything else is refused before the token is read. */
  allowedHostnames: string[];
}) {
  const handle = async (request: Request): Promise<Response> => {
    // Stateless: there is no SSE stream to open on GET nor a session to DELETE. Idle SDK clients poll
    // GET about once a second, so it is refused before the token check costs a signature and a lookup.
    if (request.method !== 'POST') return rpcError(405, -32000, 'Method not allowed: this server answers POST only (stateless, no SSE stream)', { allow: 'POST' });
    let actor: AgentAccessActor;
    const token = bearerToken(request);
    // No credentials: the challenge names where to find the authorization server (RFC 9728 §5.1), with no error code (RFC 6750 §3.1).
    if (!token) return json({ error: 'invalid_token', error_description: 'A bearer access token is required' }, { status: 401, headers: { 'www-authenticate': bearerChallenge(deps.resource()) } });
    try {
      actor = await deps.verifyToken(token, deps.resource());
    } catch (error) {
      const domain = toDomainError(error, deps.logger);
      // A token that cannot be checked now (the database is down or moved) is not an invalid one: 503, logged.
      if (domain.code === 'DEPENDENCY_UNAVAILABLE') {
        deps.logger.warn('an MCP request could not be checked: the database is unavailable', { error });
        return mcpUnavailableResponse();
      }
      // Nor is a failure of ours (logged once by toDomainError): a client told 401 would throw its token away.
      if (domain.code !== 'UNAUTHENTICATED') return rpcError(500, -32603, 'Internal error');
      return json({ error: 'invalid_token', error_description: domain.message }, { status: 401, headers: { 'www-authenticate': bearerChallenge(deps.resource(), { error: 'invalid_token', description: domain.message }) } });
    }
    // The body is read here, within its limit and after the token check, and handed over parsed.
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(await readBodyLimited(request, MAX_MCP_BODY_BYTES));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return rpcError(413, -32600, `The request body is larger than ${MAX_MCP_BODY_BYTES} bytes`);
      return rpcError(400, -32700, 'Parse error: the body is not JSON');
    }
    // The SDK binds a server to one transport, and a stateless transport to one request: both are per
    // request; the caller travels as the request's auth info (ADR 0016).
    const server = buildMcpServer({ registry: deps.registry, version: deps.version, logger: deps.logger });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    const authInfo = { token, clientId: actor.type === 'a2a' ? actor.clientId : actor.id, scopes: [], extra: { actor } };
    try {
      return await transport.handleRequest(request, { authInfo, parsedBody });
    } finally {
      // Stateless: nothing outlives the request.
      void server.close().catch(() => undefined);
    }
  };
  return async (request: Request): Promise<Response> => {
    // DNS rebinding: a page whose name resolves to this machine must not reach the endpoint.
    const hostname = hostnameOf(request.headers.get('host'));
    if (!hostname || !deps.allowedHostnames.includes(hostname)) return rpcError(403, -32000, `Invalid Host header: ${request.headers.get('host') ?? '(none)'}`);
    if (request.method === 'OPTIONS') return preflight();
    return withHeaders(await handle(request), CORS_HEADERS);
  };
}

/** The 503 of the MCP endpoint while the database is down: a JSON-RPC error (id null), Retry-After. */
export function mcpUnavailableResponse(): Response {
  return json({ jsonrpc: '2.0', id: null, error: { code: ERROR_TABLE.DEPENDENCY_UNAVAILABLE.jsonRpc, message: 'The database is unavailable; try again shortly' } }, { status: 503, headers: { ...unavailableHeaders(), ...CORS_HEADERS } });
}
