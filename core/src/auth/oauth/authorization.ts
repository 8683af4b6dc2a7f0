import type { UiActor } from '../actor.ts';
import { isLoopbackHost, type AppClient, type AppClients } from './app-clients.ts';
import type { Consents } from './consents.ts';
import { isPkceValue } from './pkce.ts';
import { MCP_SCOPE } from './protected-resource.ts';

export const AUTHORIZATION_ENDPOINT_PATH = '/oauth/authorize';

/** A valid authorization request (RFC 6749 §4.1.1 with PKCE and RFC 8707 `resource`). */
export interface AuthorizationRequest {
  client: AppClient;
  redirectUri: string;
  /** False when the request left `redirect_uri` out (the client's only registered one is used). */
  redirectUriSent: boolean;
  state: string | null;
  codeChallenge: string;
  resource: string;
  /** Tools the client asked for by `mcp:<tool>` scopes: preselected on the consent page. */
  requestedPrimitives: string[];
  scope: string;
}

/**
 * What to do with a request to the authorization endpoint: show the consent page; send the
 * client an error at its redirect URI; or, when the client or its redirect URI cannot be trusted,
 * say so on the page and redirect nowhere (RFC 6749 §4.1.2.1).
 */
export type AuthorizationCheck = { kind: 'consent'; request: AuthorizationRequest } | { kind: 'redirect'; location: string } | { kind: 'refuse'; message: string };

/** Exact match, except that a loopback http redirect may use any port (RFC 8252 §7.3). */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  try {
    const a = new URL(registered);
    const b = new URL(requested);
    if (a.protocol !== 'http:' || b.protocol !== 'http:' || !isLoopbackHost(a.hostname) || a.hostname !== b.hostname) return false;
    a.port = '';
    b.port = '';
    return a.href === b.href;
  } catch {
    return false;
  }
}

/** The authorization endpoint's decisions: reading a request, and turning an admin's answer into the redirect back. */
export function createAuthorization(deps: { appClients: AppClients; consents: Consents; issuer: () => string; resources: () => string[] }) {
  const back = (redirectUri: string, params: Record<string, string | null>) => {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries({ ...params, iss: deps.issuer() })) if (value !== null) url.searchParams.set(name, value);
    return url.href;
  };

  async function read(params: URLSearchParams): Promise<AuthorizationCheck> {
    for (const name of ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'state', 'scope', 'resource']) {
      if (params.getAll(name).length > 1) return { kind: 'refuse', message: `The request repeats ${name}.` };
    }
    const clientId = params.get('client_id');
    if (!clientId) return { kind: 'refuse', message: 'The request names no client_id.' };
    let client: AppClient;
    try {
      client = await deps.appClients.find(clientId);
    } catch (error) {
      return { kind: 'refuse', message: error instanceof Error ? error.message : String(error) };
    }
    const requested = params.get('redirect_uri');
    // With one registered redirect URI the parameter may be left out (RFC 6749 §3.1.2.3).
    const redirectUri = requested ?? (client.redirectUris.length === 1 ? client.redirectUris[0]! : null);
    if (!redirectUri || !client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
      return { kind: 'refuse', message: `The redirect URI ${redirectUri ? JSON.stringify(redirectUri.slice(0, 200)) : '(none)'} is not one ${client.name} registered; nothing was sent to it.` };
    }
    const state = params.get('state');
    const fail = (error: string, description: string): AuthorizationCheck => ({ kind: 'redirect', location: back(redirectUri, { error, error_description: description, state }) });
    if (params.get('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
    const codeChallenge = params.get('code_challenge');
    if (params.get('code_challenge_method') !== 'S256' || !isPkceValue(codeChallenge)) return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
    const resources = deps.resources();
    const resource = params.get('resource') ?? resources[0]!;
    if (!resources.includes(resource)) return fail('invalid_target', `resource must be one of ${resources.join(', ')}`);
    // Scopes this server does not know (offline_access, openid…) are ignored: the token's scope says what was granted.
    const scopes = (params.get('scope') ?? MCP_SCOPE).split(' ').filter(Boolean);
    const requestedPrimitives = [...new Set(scopes.filter((scope) => scope.startsWith(`${MCP_SCOPE}:`)).map((scope) => scope.slice(MCP_SCOPE.length + 1)))];
    return { kind: 'consent', request: { client, redirectUri, redirectUriSent: requested !== null, state, codeChallenge, resource, requestedPrimitives, scope: MCP_SCOPE } };
  }

  return {
    read,
    /** The admin approved: a code for the client at its redirect URI. */
    async approve(admin: UiActor, request: AuthorizationRequest, allowedPrimitives: string[]): Promise<string> {
      const code = await deps.consents.approve(admin, { client: request.client, redirectUri: request.redirectUri, redirectUriSent: request.redirectUriSent, codeChallenge: request.codeChallenge, resource: request.resource, allowedPrimitives });
      return back(request.redirectUri, { code, state: request.state });
    },
    /** The admin declined: `access_denied` at the client's redirect URI. */
    deny(request: AuthorizationRequest): string {
      return back(request.redirectUri, { error: 'access_denied', error_description: 'the administrator declined', state: request.state });
    },
  };
}

export type Authorization = ReturnType<typeof createAuthorization>;
