import type { AppClientAuthentication } from './app-client-authentication.ts';
import { REFRESH_TOKEN_PREFIX, type Consents } from './consents.ts';
import { basicCredentials, OAUTH_CORS_HEADERS, oauthError, oauthPreflight, readForm } from './oauth-http.ts';
import type { AccessTokens } from './tokens.ts';

export const REVOCATION_ENDPOINT_PATH = '/api/oauth/revoke';

/**
 * `POST /api/oauth/revoke` (RFC 7009), for the apps an admin consented to: a client that signs
 * out revokes its refresh token or its access token, authenticated as at the token endpoint.
 * Either one revokes the whole grant: its refresh tokens at once, its access tokens within a
 * second everywhere (they are checked against the grant on every call). A token that is unknown,
 * expired or already revoked is answered 200 as the RFC asks (nothing to do); one issued to
 * another client is refused and left alone. Client-credentials tokens belong to machine clients,
 * which do not authenticate here: an admin revokes such a client, and its tokens with it.
 */
export function createRevocationEndpoint(deps: { authentication: AppClientAuthentication; consents: Consents; tokens: AccessTokens; audiences: () => string[] }) {
  const done = () => new Response(null, { status: 200, headers: { 'cache-control': 'no-store', ...OAUTH_CORS_HEADERS } });
  // Presenting another client's token counts as a failed request of the caller's id.
  const notYours = (clientId: string) => deps.authentication.failed(clientId, oauthError(400, 'invalid_request', 'the token was not issued to this client'));

  return async (request: Request): Promise<Response> => {
    if (request.method === 'OPTIONS') return oauthPreflight('POST');
    if (request.method !== 'POST') return oauthError(405, 'invalid_request', 'use POST', { allow: 'POST' });
    const form = await readForm(request);
    if (form instanceof Response) return form;
    const basic = basicCredentials(request);
    if (basic === 'malformed') return oauthError(401, 'invalid_client', 'malformed Basic credentials', { 'www-authenticate': 'Basic realm="oauth"' });
    const clientId = await deps.authentication.appClient(form, basic);
    if (clientId instanceof Response) return clientId;
    const token = form.get('token');
    if (!token) return oauthError(400, 'invalid_request', 'token is required');
    // The hint only orders the look-ups (RFC 7009 §2.1); the token's form says which it can be.
    if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
      const outcome = await deps.consents.revokeRefreshToken(token, clientId);
      return outcome === 'not-yours' ? notYours(clientId) : done();
    }
    const subject = await deps.tokens.subjectOf(token, deps.audiences());
    if (!subject) return done();
    if (subject.kind === 'client') return notYours(clientId);
    // Whose it is, the grant the token names says (the token was issued from it).
    return (await deps.consents.revokeGrantOfClient(subject.grantId, clientId)) === 'not-yours' ? notYours(clientId) : done();
  };
}
