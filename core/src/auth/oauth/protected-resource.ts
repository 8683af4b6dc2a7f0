import { json } from '../../http/index.ts';

/** The scope the MCP endpoints advertise: "call the tools an admin grants". `mcp:<tool>` asks for one tool by name. */
export const MCP_SCOPE = 'mcp';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** RFC 9728 §3.1: the metadata URL of a resource is its origin, the well-known path, then the resource's path. */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}${path}`;
}

/**
 * The `WWW-Authenticate` of a 401 from a protected resource: where its metadata is (RFC 9728 §5.1),
 * so a client that knows only the resource's URL can find the authorization server.
 */
export function bearerChallenge(resource: string, problem?: { error: string; description: string }): string {
  const parts = [`resource_metadata="${resourceMetadataUrl(resource)}"`, `scope="${MCP_SCOPE}"`];
  if (problem) parts.push(`error="${problem.error}"`, `error_description="${problem.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** `GET /.well-known/oauth-protected-resource[/<path>]` (RFC 9728): the resource, who issues its tokens, its scopes. */
export function createProtectedResourceMetadataHandler(deps: { resource: () => string; authorizationServer: () => string; name: string }) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return json({ error: 'invalid_request', error_description: 'use GET' }, { status: 405, headers: { allow: 'GET, HEAD' } });
    return json(
      {
        resource: deps.resource(),
        authorization_servers: [deps.authorizationServer()],
        scopes_supported: [MCP_SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: deps.name,
      },
      // Read by clients from other origins (browser-based MCP clients discover from here).
      { headers: { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' } },
    );
  };
}
