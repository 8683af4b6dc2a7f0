import type { SharedRateLimiter } from '../../http/index.ts';
import type { Logger } from '../../log/index.ts';
import { isMetadataDocumentUrl, type AppClients } from './app-clients.ts';
import { oauthError } from './oauth-http.ts';

/**
 * How the apps an admin consented to (metadata-document and registered clients) authenticate at
 * the token and revocation endpoints: a public client names itself with `client_id`, a
 * confidential registered one authenticates as it registered. Failures are counted per client id
 * across every process; once an id is past the limit its failures are answered 429 until the
 * window ends, while a valid request for it still passes.
 */
export function createAppClientAuthentication(deps: { appClients: AppClients; failureLimiter: SharedRateLimiter; logger: Logger }) {
  // Failed requests per client id: a public client proves only its id, so refusing an id outright
  // would let anyone who names Claude's or ChatGPT's id block that app's refreshes for all. So a
  // valid code or refresh token always passes; only failures are slowed: once an id's failures
  // reached the limit, each further failure is answered 429 until its window ends (remembered in
  // this process, counted across all of them).
  const blockedUntil = new Map<string, number>();
  async function failed(clientId: string, answer: Response): Promise<Response> {
    const id = clientId.slice(0, 200);
    const limit = await deps.failureLimiter.take(`token-failure:${id}`);
    if (!limit.allowed) {
      if (blockedUntil.size >= 10_000) blockedUntil.clear();
      blockedUntil.set(id, Date.now() + limit.retryAfterSeconds * 1000);
    }
    const blocked = blockedUntil.get(id);
    if (!blocked || blocked <= Date.now()) return answer;
    return oauthError(429, 'slow_down', 'too many failed token requests for this client', { 'retry-after': String(Math.ceil((blocked - Date.now()) / 1000)) });
  }

  /**
   * The app client the request speaks for, authenticated as it registered, or a Response refusing
   * it. A metadata-document client is public by definition: its id is taken as it is, never
   * fetched here (the code or refresh token it presents must have been issued to that id).
   */
  async function appClient(form: URLSearchParams, basic: { clientId: string; clientSecret: string } | null): Promise<string | Response> {
    const clientId = basic?.clientId ?? form.get('client_id');
    if (!clientId) return oauthError(401, 'invalid_client', 'client_id is required');
    if (basic && form.has('client_id') && form.get('client_id') !== basic.clientId) return oauthError(400, 'invalid_request', 'client_id differs from the Basic credentials');
    const secret = basic?.clientSecret ?? form.get('client_secret');
    const publicClient = () => (secret === null ? clientId : oauthError(401, 'invalid_client', 'this client is public (token_endpoint_auth_method "none"): send no secret'));
    if (isMetadataDocumentUrl(clientId)) return publicClient();
    const client = await deps.appClients.registered(clientId);
    if (!client) return failed(clientId, oauthError(401, 'invalid_client', 'unknown client'));
    if (client.authMethod === 'none') return publicClient();
    const used = basic ? 'client_secret_basic' : 'client_secret_post';
    if (secret === null || used !== client.authMethod || !(await deps.appClients.secretMatches(clientId, secret))) {
      deps.logger.warn('OAuth request with bad app client credentials', { clientId: clientId.slice(0, 100) });
      return failed(clientId, oauthError(401, 'invalid_client', `wrong secret, or not sent as ${client.authMethod}`, basic ? { 'www-authenticate': 'Basic realm="oauth"' } : {}));
    }
    return clientId;
  }

  return {
    appClient,
    /** Counts a failed request of `clientId`: `answer`, or 429 once the id's failures are past the limit. */
    failed,
  };
}

export type AppClientAuthentication = ReturnType<typeof createAppClientAuthentication>;
