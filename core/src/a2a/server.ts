import type { AgentAccessActor as AuthenticatedClientLike } from '../auth/index.ts';
import type { FeatureFlags } from '../config/index.ts';
import { DomainError, toDomainError } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited, unavailableHeaders } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { parseEnvelope, rpcError, rpcIdOf, type JsonRpcRequest } from './jsonrpc.ts';
import { sseErrorResponse } from './sse.ts';
import { createA2aOperations, type A2aOperationsDeps } from './operations.ts';
import { dispatchV1, V1_METHODS, V1_STREAMING } from './server-v1.ts';
import { rpcErrorV1 } from './error-details-v1.ts';
import { a2aRpcUnavailableResponse } from './unavailable.ts';
import { authenticateBearer } from './authenticate.ts';
import { isVersion03, isVersion10, requestedVersion } from './versions.ts';
import { wantsAgui } from './agui.ts';
import { dispatch03, isStreaming03 } from './compat/v03/dispatch.ts';

export const MAX_A2A_BODY_BYTES = 1024 * 1024;

export interface A2aServerDeps extends A2aOperationsDeps {
  flags: () => Promise<FeatureFlags>;
  verifyToken: (token: string) => Promise<AuthenticatedClientLike>;
  logger: Logger;
}

/**
 * The protocol a request speaks: its `A2A-Version` header; without one, v1.0 for the v1.0 method
 * names (a message in v0.3 shape, role "user", under such a name stays v0.3), else v0.3.
 */
function protocolOf(request: Request, rpc: JsonRpcRequest): '0.3' | '1.0' {
  // The spec allows the version as a request parameter instead of the header.
  const header = requestedVersion(request);
  if (header) {
    if (isVersion10(header)) return '1.0';
    if (isVersion03(header)) return '0.3';
    throw new DomainError('VERSION_NOT_SUPPORTED', `A2A-Version ${header.slice(0, 20)} is not supported: this agent speaks 1.0 and 0.3`);
  }
  if (!V1_METHODS.has(rpc.method)) return '0.3';
  const role = (rpc.params as { message?: { role?: unknown } } | null | undefined)?.message?.role;
  return role === 'user' || role === 'agent' ? '0.3' : '1.0';
}

/**
 * `POST /api/a2a` (and `/a2a/<vendor>/<slug>`, one agent's endpoint): JSON-RPC 2.0 for A2A v0.3
 * and v1.0. 404 while SERVICE_A2A_HTTP_ENABLED is off (read per request), 401 without a valid
 * bearer JWT, then JSON-RPC errors in a 200 response: never a 5xx for anything the caller sent.
 */
export function createA2aHandler(deps: A2aServerDeps) {
  const ops = createA2aOperations(deps);

  return async (request: Request, route: { agent?: string } = {}): Promise<Response> => {
    if (!(await deps.flags()).a2aHttpEnabled) return new Response('Not Found', { status: 404 });
    if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use POST' } }, { status: 405, headers: { allow: 'POST' } });
    let actor: AuthenticatedClientLike;
    try {
      actor = await authenticateBearer(deps.verifyToken, bearerToken(request));
    } catch (error) {
      const domain = toDomainError(error);
      if (domain.code === 'DEPENDENCY_UNAVAILABLE') return a2aRpcUnavailableResponse(new URL(request.url).host);
      return json({ error: { code: 'UNAUTHENTICATED', message: domain.message } }, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }
    const agent = route.agent ?? null;
    if (agent && !(await deps.card()).skills.some((skill) => skill.id === agent)) return json({ error: { code: 'NOT_FOUND', message: `No agent ${agent} on this host` } }, { status: 404 });
    let rpc: JsonRpcRequest | undefined;
    let streaming = false;
    let version: '0.3' | '1.0' = '0.3';
    try {
      const text = await readBodyLimited(request, MAX_A2A_BODY_BYTES);
      rpc = parseEnvelope(text);
      streaming = V1_STREAMING.has(rpc.method) || isStreaming03(rpc.method);
      version = protocolOf(request, rpc);
      if (version === '1.0') return await dispatchV1(ops, request, rpc, actor, agent);
      // AG-UI rides along only when the operator enabled it and this client asked for it.
      const agui = wantsAgui(request) && (await deps.flags()).aguiExternalEnabled;
      return await dispatch03(ops, request, rpc, actor, agent, agui);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return json(rpcError(rpc?.id ?? null, error), { status: 413 });
      const id = rpc?.id ?? rpcIdOf(error);
      const payload = version === '1.0' ? rpcErrorV1(id, error, { logger: deps.logger, serviceDomain: new URL(request.url).host }) : rpcError(id, error, deps.logger);
      // The database is down: HTTP 503 with Retry-After (a JSON-RPC error body), so clients retry.
      if (toDomainError(error).code === 'DEPENDENCY_UNAVAILABLE') return json(payload, { status: 503, headers: unavailableHeaders() });
      // A client of a streaming method reads an event stream: its error comes as one frame of it.
      return streaming ? sseErrorResponse(payload) : json(payload);
    }
  };
}
