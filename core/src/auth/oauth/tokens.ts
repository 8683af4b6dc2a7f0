import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { DomainError } from '../../errors/index.ts';
import type { A2aActor } from '../actor.ts';
import type { OauthClients, OauthClientView } from './clients.ts';
import type { Consents, GrantView } from './consents.ts';
import { MCP_SCOPE } from './protected-resource.ts';
import { SIGNING_ALG, type SigningKeys } from './signing-keys.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 600;
/** How long a token whose signature and claims were checked is taken as checked (never past its expiry). */
const VERIFIED_REUSE_MS = 60_000;
const VERIFIED_MAX_ENTRIES = 10_000;

export interface AuthenticatedClient extends A2aActor {
  grants: Pick<OauthClientView, 'allowedAgents' | 'permissions' | 'allowedPrimitives'>;
  /** Unix seconds; lets MCP's bearer middleware know when the token lapses. */
  expiresAt: number;
}

/**
 * Issues and verifies the access tokens of the OAuth provider. Issuer and audience are both
 * the canonical origin (SERVICE_BASE_URL), so a token minted here is accepted here whatever
 * host name or tunnel the request came through, and nowhere else.
 */
export function createAccessTokens(deps: { keys: SigningKeys; clients: OauthClients; consents: Consents; canonicalOrigin: () => string }) {
  let jwksCache: { at: number; keySet: ReturnType<typeof createLocalJWKSet> } | undefined;
  const keySet = async (refresh = false) => {
    if (refresh || !jwksCache || Date.now() - jwksCache.at > 30_000) jwksCache = { at: Date.now(), keySet: createLocalJWKSet(await deps.keys.jwks()) };
    return jwksCache.keySet;
  };

  /** `scope`: the permissions this token carries, a subset of the client's (all of them by default). */
  async function issue(client: OauthClientView, requested?: readonly string[]): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
    const { kid, privateKey } = await deps.keys.current();
    const origin = deps.canonicalOrigin();
    const scope = (requested ?? client.permissions).join(' ');
    const token = await new SignJWT({ client_id: client.clientId, scope })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'at+jwt' })
      .setIssuer(origin)
      .setAudience(origin)
      .setSubject(client.clientId)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope };
  }

  /**
   * An access token for an admin's consent (authorization code and refresh grants): its audience
   * is the one resource the consent names (RFC 8707), so it is refused by every other endpoint.
   */
  async function issueForGrant(grant: GrantView): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
    const { kid, privateKey } = await deps.keys.current();
    const token = await new SignJWT({ client_id: grant.clientId, grant_id: grant.grantId, scope: MCP_SCOPE })
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'at+jwt' })
      .setIssuer(deps.canonicalOrigin())
      .setAudience(grant.resource)
      .setSubject(`grant:${grant.grantId}`)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_TTL_SECONDS}s`)
      .setJti(randomBytes(12).toString('base64url'))
      .sign(privateKey);
    return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: MCP_SCOPE };
  }

  // A client sends the same token on every call until it expires; its signature (an ECDSA check
  // that Node runs on its thread pool) is checked once and the claims reused for up to a minute,
  // keyed by the whole token. The client's grants and revocation are still read on every call.
  const verified = new Map<string, { audiences: string; until: number; payload: JWTPayload }>();
  function remember(token: string, audiences: string, payload: JWTPayload) {
    const until = Math.min(Date.now() + VERIFIED_REUSE_MS, (payload.exp as number) * 1000);
    for (const [oldest, entry] of verified) {
      if (verified.size < VERIFIED_MAX_ENTRIES && entry.until > Date.now()) break;
      verified.delete(oldest);
    }
    verified.set(token, { audiences, until, payload });
  }

  async function verifiedPayload(token: string, origin: string, audience: string[]): Promise<JWTPayload> {
    const audiences = audience.join(' ');
    const known = verified.get(token);
    if (known && known.audiences === audiences && known.until > Date.now()) return known.payload;
    const options = { issuer: origin, audience, algorithms: [SIGNING_ALG], typ: 'at+jwt', clockTolerance: 5 };
    let payload: JWTPayload;
    // The keys come from the database: when it cannot be reached, the token cannot be judged (503), not refused.
    const keys = await keySet();
    try {
      payload = (await jwtVerify(token, keys, options)).payload;
    } catch (error) {
      // A key rotated in another process: look once more with a fresh key set.
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw unauthenticated(error);
      const fresh = await keySet(true);
      try {
        payload = (await jwtVerify(token, fresh, options)).payload;
      } catch (retry) {
        throw unauthenticated(retry);
      }
    }
    if (typeof payload.exp === 'number') remember(token, audiences, payload);
    return payload;
  }

  /**
   * Signature (our keys, ES256 only), type, issuer, audience, expiry, then the client's or the
   * consent's live state. A machine client's token (audience: the origin) is taken everywhere; a
   * consent's token only by the endpoint that names its `resource`.
   */
  async function verify(token: string, resource?: string): Promise<AuthenticatedClient> {
    const origin = deps.canonicalOrigin();
    const payload = await verifiedPayload(token, origin, resource ? [origin, resource] : [origin]);
    if (payload.grant_id !== undefined) return verifyGrant(payload, resource);
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : null;
    if (!clientId || payload.sub !== clientId || typeof payload.exp !== 'number') throw unauthenticated(new Error('token lacks client_id/sub/exp'));
    const client = await deps.clients.current(clientId);
    if (!client || client.revoked) throw unauthenticated(new Error('client unknown or revoked'));
    // A token carries at most its scope, and never more than the client holds now.
    const scope = typeof payload.scope === 'string' ? payload.scope.split(' ') : null;
    const permissions = scope ? client.permissions.filter((permission) => scope.includes(permission)) : client.permissions;
    return {
      type: 'a2a',
      id: `oauth:${clientId}`,
      clientId,
      grants: { allowedAgents: client.allowedAgents, permissions, allowedPrimitives: client.allowedPrimitives },
      expiresAt: payload.exp,
    };
  }

  async function verifyGrant(payload: JWTPayload, resource: string | undefined): Promise<AuthenticatedClient> {
    const grantId = typeof payload.grant_id === 'string' ? payload.grant_id : null;
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : null;
    if (!grantId || !clientId || payload.sub !== `grant:${grantId}` || payload.aud !== resource || typeof payload.exp !== 'number') throw unauthenticated(new Error('token lacks grant_id/client_id/sub/aud/exp'));
    const grant = await deps.consents.current(grantId);
    if (!grant || grant.revoked) throw unauthenticated(new Error('grant unknown or revoked'));
    return {
      type: 'a2a',
      id: `oauth-grant:${grantId}`,
      clientId,
      grants: { allowedAgents: [], permissions: [], allowedPrimitives: grant.allowedPrimitives },
      expiresAt: payload.exp,
    };
  }

  /**
   * What an access token this service issued names, for its revocation (RFC 7009): its signature,
   * type, issuer and expiry checked, its audience one of `audiences`. Null for anything else (a
   * token not ours, expired, or malformed: there is nothing to revoke).
   */
  async function subjectOf(token: string, audiences: string[]): Promise<{ kind: 'grant'; grantId: string } | { kind: 'client'; clientId: string } | null> {
    const origin = deps.canonicalOrigin();
    let payload: JWTPayload;
    try {
      payload = await verifiedPayload(token, origin, [origin, ...audiences]);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'UNAUTHENTICATED') return null;
      throw error;
    }
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : null;
    if (!clientId) return null;
    if (typeof payload.grant_id === 'string') return { kind: 'grant', grantId: payload.grant_id };
    return payload.grant_id === undefined ? { kind: 'client', clientId } : null;
  }

  return { issue, issueForGrant, verify, subjectOf };
}

function unauthenticated(cause: unknown): DomainError {
  return new DomainError('UNAUTHENTICATED', 'Invalid or expired access token', { cause });
}

export type AccessTokens = ReturnType<typeof createAccessTokens>;
