import { A2A_PERMISSIONS } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import { json, readBodyLimited, type SharedRateLimiter } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { OauthClients } from './clients.ts';
import type { AccessTokens } from './tokens.ts';

export const TOKEN_ENDPOINT_PATH = '/api/oauth/token';
const MAX_BODY = 8 * 1024;

/** RFC 6749 §5.2 error response. */
function oauthError(status: number, error: string, description: string, headers: Record<string, string> = {}): Response {
  return json({ error, error_description: description }, { status, headers: { pragma: 'no-cache', ...headers } });
}

function basicCredentials(request: Request): { clientId: string; clientSecret: string } | null | 'malformed' {
  const header = request.headers.get('authorization');
  if (!header || !/^Basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')), clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')) };
  } catch {
    return 'malformed';
  }
}

/**
 * The token endpoint: client credentials grant (RFC 6749 §4.4) with `client_secret_basic` or
 * `client_secret_post` (never both), rate-limited per client id across every process on the database.
 */
export function createTokenEndpoint(deps: { clients: OauthClients; tokens: AccessTokens; rateLimiter: SharedRateLimiter; logger: Logger }) {
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'use POST', { allow: 'POST' });
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '')) {
      return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    }
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await readBodyLimited(request, MAX_BODY));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return oauthError(413, 'invalid_request', error.message);
      throw error;
    }
    if (form.get('grant_type') !== 'client_credentials') {
      return oauthError(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
    }
    const basic = basicCredentials(request);
    const posted = form.has('client_id') || form.has('client_secret') ? { clientId: form.get('client_id') ?? '', clientSecret: form.get('client_secret') ?? '' } : null;
    if (basic === 'malformed') return oauthError(401, 'invalid_client', 'malformed Basic credentials', { 'www-authenticate': 'Basic realm="oauth"' });
    if (basic && posted) return oauthError(400, 'invalid_request', 'use one client authentication method, not two');
    const credentials = basic ?? posted;
    if (!credentials) return oauthError(401, 'invalid_client', 'client authentication required', { 'www-authenticate': 'Basic realm="oauth"' });

    const limit = await deps.rateLimiter.take(`token:${credentials.clientId}`);
    if (!limit.allowed) return oauthError(429, 'slow_down', 'too many token requests for this client', { 'retry-after': String(limit.retryAfterSeconds) });

    const client = await deps.clients.authenticate(credentials.clientId, credentials.clientSecret);
    if (!client) {
      deps.logger.warn('token request with bad client credentials', { clientId: credentials.clientId.slice(0, 100) });
      return oauthError(401, 'invalid_client', 'unknown client, wrong secret, or revoked', basic ? { 'www-authenticate': 'Basic realm="oauth"' } : {});
    }
    // RFC 6749 §3.3: a requested scope narrows the token; unknown or ungranted scopes are refused.
    const requested = form.get('scope')?.split(' ').filter(Boolean);
    if (requested?.length) {
      const unknown = requested.filter((scope) => !(A2A_PERMISSIONS as readonly string[]).includes(scope));
      if (unknown.length) return oauthError(400, 'invalid_scope', `unknown scope ${unknown.map((s) => `"${s.slice(0, 40)}"`).join(', ')}; scopes are ${A2A_PERMISSIONS.join(', ')}`);
      const ungranted = requested.filter((scope) => !(client.permissions as readonly string[]).includes(scope));
      if (ungranted.length) return oauthError(400, 'invalid_scope', `this client is not granted ${ungranted.join(', ')}`);
    }
    return json(await deps.tokens.issue(client, requested?.length ? [...new Set(requested)] : undefined), { headers: { pragma: 'no-cache' } });
  };
}

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414): where to get a token and the keys
 * that verify it, for clients that discover them instead of being told.
 */
export function createAuthorizationServerMetadataHandler(deps: { canonicalOrigin: () => string; jwksPath: string }) {
  return async (): Promise<Response> => {
    const issuer = deps.canonicalOrigin();
    return json(
      {
        issuer,
        token_endpoint: `${issuer}${TOKEN_ENDPOINT_PATH}`,
        jwks_uri: `${issuer}${deps.jwksPath}`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: [...A2A_PERMISSIONS],
        response_types_supported: [],
      },
      { headers: { 'cache-control': 'public, max-age=300' } },
    );
  };
}

/** `GET /.well-known/jwks.json`: the public keys tokens are signed with. */
export function createJwksHandler(deps: { keys: { jwks(): Promise<unknown> } }) {
  return async (): Promise<Response> => json(await deps.keys.jwks(), { headers: { 'cache-control': 'public, max-age=300' } });
}
