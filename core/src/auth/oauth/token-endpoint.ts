import { A2A_PERMISSIONS } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import { json, readBodyLimited, type SharedRateLimiter } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import type { AppClients } from './app-clients.ts';
import type { AppClientAuthentication } from './app-client-authentication.ts';
import { AUTHORIZATION_ENDPOINT_PATH } from './authorization.ts';
import type { OauthClients } from './clients.ts';
import { OauthGrantError, type Consents } from './consents.ts';
import { MCP_SCOPE } from './protected-resource.ts';
import type { AccessTokens } from './tokens.ts';
import { REVOCATION_ENDPOINT_PATH } from './revocation-endpoint.ts';
import { basicCredentials, OAUTH_CORS_HEADERS, oauthError, oauthPreflight, readForm } from './oauth-http.ts';

export const TOKEN_ENDPOINT_PATH = '/api/oauth/token';
export const REGISTRATION_ENDPOINT_PATH = '/api/oauth/register';

const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'];

/**
 * The token endpoint, rate-limited per client id across every process on the database:
 * - client credentials (RFC 6749 §4.4) for machine clients, with `client_secret_basic` or
 *   `client_secret_post` (never both);
 * - authorization code with PKCE and refresh token (RFC 6749 §4.1.3, §6) for the apps an admin
 *   consented to: a public client names itself with `client_id`, a confidential registered one
 *   authenticates as above; for these only failed requests count against the client's limit.
 */
export function createTokenEndpoint(deps: { clients: OauthClients; authentication: AppClientAuthentication; consents: Consents; tokens: AccessTokens; rateLimiter: SharedRateLimiter; logger: Logger }) {
  async function consentGrant(form: URLSearchParams, basic: { clientId: string; clientSecret: string } | null): Promise<Response> {
    const clientId = await deps.authentication.appClient(form, basic);
    if (clientId instanceof Response) return clientId;
    const resources = form.getAll('resource');
    if (resources.length > 1) return oauthError(400, 'invalid_target', 'one resource per token');
    try {
      const { grant, refreshToken } =
        form.get('grant_type') === 'authorization_code'
          ? await deps.consents.redeem({ code: form.get('code') ?? '', clientId, redirectUri: form.get('redirect_uri'), verifier: form.get('code_verifier'), resource: resources[0] ?? null })
          : await deps.consents.refresh({ refreshToken: form.get('refresh_token') ?? '', clientId, resource: resources[0] ?? null });
      return json({ ...(await deps.tokens.issueForGrant(grant)), refresh_token: refreshToken }, { headers: { pragma: 'no-cache', 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS } });
    } catch (error) {
      if (!(error instanceof OauthGrantError)) throw error;
      return deps.authentication.failed(clientId, oauthError(400, error.error, error.message));
    }
  }

  return async (request: Request): Promise<Response> => {
    if (request.method === 'OPTIONS') return oauthPreflight('POST');
    if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'use POST', { allow: 'POST' });
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const grantType = form.get('grant_type');
    if (!grantType || !GRANT_TYPES.includes(grantType)) return oauthError(400, 'unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}`);
    const basic = basicCredentials(request);
    if (basic === 'malformed') return oauthError(401, 'invalid_client', 'malformed Basic credentials', { 'www-authenticate': 'Basic realm="oauth"' });
    if (grantType !== 'client_credentials') return consentGrant(form, basic);
    const posted = form.has('client_id') || form.has('client_secret') ? { clientId: form.get('client_id') ?? '', clientSecret: form.get('client_secret') ?? '' } : null;
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
    return json(await deps.tokens.issue(client, requested?.length ? [...new Set(requested)] : undefined), { headers: { pragma: 'no-cache', 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS } });
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
        authorization_endpoint: `${issuer}${AUTHORIZATION_ENDPOINT_PATH}`,
        token_endpoint: `${issuer}${TOKEN_ENDPOINT_PATH}`,
        registration_endpoint: `${issuer}${REGISTRATION_ENDPOINT_PATH}`,
        revocation_endpoint: `${issuer}${REVOCATION_ENDPOINT_PATH}`,
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
        jwks_uri: `${issuer}${deps.jwksPath}`,
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
        scopes_supported: [...A2A_PERMISSIONS, MCP_SCOPE],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      },
      { headers: { 'cache-control': 'public, max-age=300', ...OAUTH_CORS_HEADERS } },
    );
  };
}

/** `GET /.well-known/jwks.json`: the public keys tokens are signed with. */
export function createJwksHandler(deps: { keys: { jwks(): Promise<unknown> } }) {
  return async (): Promise<Response> => json(await deps.keys.jwks(), { headers: { 'cache-control': 'public, max-age=300', ...OAUTH_CORS_HEADERS } });
}

const MAX_REGISTRATION_BODY = 16 * 1024;

/**
 * `POST /api/oauth/register` (RFC 7591): open registration for clients that predate metadata
 * documents. A registration grants nothing (an admin's consent does) and lapses after a day unless
 * a consent is redeemed; registrations are rate-limited across the service.
 */
export function createRegistrationEndpoint(deps: { appClients: AppClients; rateLimiter: SharedRateLimiter }) {
  const refuse = (status: number, error: string, description: string, headers: Record<string, string> = {}) => json({ error, error_description: description }, { status, headers: { 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS, ...headers } });
  return async (request: Request): Promise<Response> => {
    if (request.method === 'OPTIONS') return oauthPreflight('POST');
    if (request.method !== 'POST') return refuse(405, 'invalid_request', 'use POST', { allow: 'POST' });
    if (!/^application\/json\b/i.test(request.headers.get('content-type') ?? '')) return refuse(400, 'invalid_client_metadata', 'the body must be application/json');
    const limit = await deps.rateLimiter.take('register');
    if (!limit.allowed) return refuse(429, 'slow_down', 'too many registrations; try again later', { 'retry-after': String(limit.retryAfterSeconds) });
    let body: unknown;
    try {
      body = JSON.parse(await readBodyLimited(request, MAX_REGISTRATION_BODY));
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return refuse(413, 'invalid_client_metadata', error.message);
      return refuse(400, 'invalid_client_metadata', 'the body is not JSON');
    }
    try {
      const { client, clientSecret, issuedAt } = await deps.appClients.register(body);
      return json(
        {
          client_id: client.clientId,
          client_id_issued_at: issuedAt,
          ...(clientSecret ? { client_secret: clientSecret, client_secret_expires_at: 0 } : {}),
          client_name: client.name,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: client.authMethod,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          ...(client.clientUri ? { client_uri: client.clientUri } : {}),
        },
        { status: 201, headers: { 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS } },
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return refuse(400, /redirect_uri/.test(error.message) ? 'invalid_redirect_uri' : 'invalid_client_metadata', error.message);
      throw error;
    }
  };
}
