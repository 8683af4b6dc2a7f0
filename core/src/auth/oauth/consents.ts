import { randomBytes } from 'node:crypto';
import { sha256Url } from '../../crypto/index.ts';
import { createClaims, type Models } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import { uuidv7 } from '../../ids/index.ts';
import { isAdmin, type Actor, type UiActor } from '../actor.ts';
import type { AuditTrail } from '../audit-trail.ts';
import type { AppClient } from './app-clients.ts';
import { verifiesS256 } from './pkce.ts';
import { recentReads } from './recent-reads.ts';

export interface GrantView {
  grantId: string;
  clientId: string;
  clientName: string;
  clientKind: AppClient['kind'];
  redirectUri: string;
  resource: string;
  allowedPrimitives: string[];
  consentedByEmail: string;
  createdAt: string;
  lastRefreshedAt: string | null;
  revoked: boolean;
  revokedReason: string | null;
}

/** What an admin approved on the consent page, carried by the code until it is redeemed. */
export interface Consent {
  client: AppClient;
  redirectUri: string;
  /** Whether the authorization request named the redirect URI (else the one registered was used). */
  redirectUriSent: boolean;
  codeChallenge: string;
  resource: string;
  allowedPrimitives: string[];
}

/** An RFC 6749 §5.2 error the token endpoint answers as it is. */
export class OauthGrantError extends Error {
  constructor(
    readonly error: 'invalid_grant' | 'invalid_request' | 'invalid_target',
    message: string,
  ) {
    super(message);
  }
}

export const AUTHORIZATION_CODE_TTL_MS = 60_000;
/** Refresh tokens are opaque and carry this prefix (access tokens are JWTs). */
export const REFRESH_TOKEN_PREFIX = 'svr_';
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;
const GRANT_STATE_TTL_MS = 1_000;

const digest = sha256Url;

function toView(row: {
  _id: string;
  clientId: string;
  clientName: string;
  clientKind: string;
  redirectUri: string;
  resource: string;
  allowedPrimitives?: string[] | null;
  consentedByEmail: string;
  createdAt?: Date | null;
  lastRefreshedAt?: Date | null;
  revokedAt?: Date | null;
  revokedReason?: string | null;
}): GrantView {
  return {
    grantId: row._id,
    clientId: row.clientId,
    clientName: row.clientName,
    clientKind: row.clientKind as AppClient['kind'],
    redirectUri: row.redirectUri,
    resource: row.resource,
    allowedPrimitives: row.allowedPrimitives ?? [],
    consentedByEmail: row.consentedByEmail,
    createdAt: (row.createdAt ?? new Date(0)).toISOString(),
    lastRefreshedAt: row.lastRefreshedAt?.toISOString() ?? null,
    revoked: !!row.revokedAt,
    revokedReason: row.revokedReason ?? null,
  };
}

/**
 * Consents (grants) of the authorization code flow: the one-time codes an approval makes, the
 * grant a redeemed code becomes, its rotating refresh tokens, and revocation. Every step that must
 * happen once (redeeming a code, using a refresh token) is won by inserting a claim row under its
 * key, so two processes presented the same code or token cannot both succeed; the loser's
 * presentation counts as a replay and revokes the grant (RFC 6749 §4.1.2, RFC 9700 §4.14.2).
 */
export function createConsents(deps: { models: Models; audit: AuditTrail; keepClient: (clientId: string) => Promise<void> }) {
  const { OauthGrant, OauthAuthorizationCode, OauthRefreshToken } = deps.models;
  const claims = createClaims(deps.models);
  const recent = recentReads(GRANT_STATE_TTL_MS, async (grantId): Promise<GrantView | null> => {
    const row = await OauthGrant.findById(grantId).lean();
    return row ? toView(row) : null;
  });

  async function revokeGrant(grantId: string, reason: string, actor: Actor | null) {
    const { modifiedCount } = await OauthGrant.updateOne({ _id: grantId, revokedAt: null }, { $set: { revokedAt: new Date(), revokedReason: reason } });
    await OauthRefreshToken.deleteMany({ grantId });
    recent.forget(grantId);
    if (modifiedCount) deps.audit.record(actor ?? { type: 'worker', id: 'worker:oauth', job: 'oauth' }, { action: 'oauth_grant.revoke', resourceType: 'oauth_grant', resourceId: grantId, details: { reason } });
  }

  /**
   * Revocation by the client of a grant it names (from a refresh token, or an access token whose
   * signature is checked): whose the grant is, the grant says.
   */
  async function revokeGrantOfClient(grantId: string, clientId: string): Promise<'revoked' | 'unknown' | 'not-yours'> {
    const grant = await OauthGrant.findById(grantId, { clientId: 1 }).lean();
    if (!grant) return 'unknown';
    if (grant.clientId !== clientId) return 'not-yours';
    await revokeGrant(grantId, 'revoked by the client', null);
    return 'revoked';
  }

  async function newRefreshToken(grantId: string, clientId: string): Promise<string> {
    const token = `${REFRESH_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await OauthRefreshToken.create({ _id: digest(token), grantId, clientId, expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_MS) });
    return token;
  }

  return {
    /** Records an admin's approval; the code (shown once, to the client's redirect URI) is good for a minute. */
    async approve(admin: UiActor, consent: Consent): Promise<string> {
      const code = randomBytes(32).toString('base64url');
      await OauthAuthorizationCode.create({
        _id: digest(code),
        clientId: consent.client.clientId,
        clientName: consent.client.name,
        clientKind: consent.client.kind,
        redirectUri: consent.redirectUri,
        redirectUriSent: consent.redirectUriSent,
        codeChallenge: consent.codeChallenge,
        resource: consent.resource,
        allowedPrimitives: consent.allowedPrimitives,
        consentedBy: admin.id,
        consentedByEmail: admin.email,
        expiresAt: new Date(Date.now() + AUTHORIZATION_CODE_TTL_MS),
      });
      deps.audit.record(admin, { action: 'oauth_grant.consent', resourceType: 'oauth_client', resourceId: consent.client.clientId.slice(0, 200), details: { name: consent.client.name, redirectUri: consent.redirectUri, resource: consent.resource, allowedPrimitives: consent.allowedPrimitives } });
      return code;
    },

    /**
     * The authorization code grant (RFC 6749 §4.1.3 with PKCE): the code must be this client's,
     * unexpired, unused, for this redirect URI and resource, and `verifier` must match its S256
     * challenge. Returns the new grant and its first refresh token.
     */
    async redeem(input: { code: string; clientId: string; redirectUri: string | null; verifier: string | null; resource: string | null }): Promise<{ grant: GrantView; refreshToken: string }> {
      const id = digest(input.code);
      // Checked before it is claimed: a guess with another client id or verifier (no secret
      // needed) must not spend the code its owner is about to exchange.
      const row = await OauthAuthorizationCode.findById(id).lean();
      if (!row || row.expiresAt.getTime() <= Date.now()) throw new OauthGrantError('invalid_grant', 'the authorization code is unknown, expired or already used');
      if (row.clientId !== input.clientId) throw new OauthGrantError('invalid_grant', 'the authorization code was issued to another client');
      // RFC 6749 §4.1.3: required, and equal, when the authorization request carried one.
      if (row.redirectUriSent ? input.redirectUri !== row.redirectUri : input.redirectUri !== null && input.redirectUri !== row.redirectUri) throw new OauthGrantError('invalid_grant', 'redirect_uri does not match the authorization request');
      if (!input.verifier || !verifiesS256(input.verifier, row.codeChallenge)) throw new OauthGrantError('invalid_grant', 'code_verifier does not match the code_challenge');
      if (input.resource !== null && input.resource !== row.resource) throw new OauthGrantError('invalid_target', 'resource differs from the one the code was issued for');
      // Claimed by inserting a row under the code's key, the one compare-and-set every server here
      // performs atomically (a conditional update is not, on FerretDB 1.24: ADR 0030).
      if (!(await claims.once(`oauth-code:${id}`))) {
        // A replay (RFC 6749 §4.1.2): the connection the first redemption made is revoked, now, or
        // by that redemption itself when it has not written it yet (it reads this mark after).
        await OauthAuthorizationCode.updateOne({ _id: id }, { $set: { replayedAt: new Date() } });
        const used = await OauthAuthorizationCode.findById(id, { grantId: 1 }).lean();
        if (used?.grantId) await revokeGrant(used.grantId, 'authorization code used twice', null);
        throw new OauthGrantError('invalid_grant', 'the authorization code is unknown, expired or already used');
      }
      // Time-ordered: the connections page is an `_id` range, newest first.
      const grantId = uuidv7();
      const { _id: _code, codeChallenge: _challenge, grantId: _unclaimed, expiresAt: _expiry, redirectUriSent: _sent, replayedAt: _replayed, ...consent } = row;
      const created = await OauthGrant.create({ _id: grantId, ...consent });
      await OauthAuthorizationCode.updateOne({ _id: id }, { $set: { grantId } });
      if ((await OauthAuthorizationCode.findById(id, { replayedAt: 1 }).lean())?.replayedAt) {
        await revokeGrant(grantId, 'authorization code used twice', null);
        throw new OauthGrantError('invalid_grant', 'the authorization code was used twice');
      }
      await deps.keepClient(row.clientId);
      const refreshToken = await newRefreshToken(grantId, row.clientId);
      return { grant: toView(created.toObject()), refreshToken };
    },

    /** The refresh token grant with rotation: the token is spent, a new one returned; a spent one presented again revokes the grant. */
    async refresh(input: { refreshToken: string; clientId: string; resource: string | null }): Promise<{ grant: GrantView; refreshToken: string }> {
      const id = digest(input.refreshToken);
      const row = await OauthRefreshToken.findById(id).lean();
      if (!row || row.expiresAt.getTime() <= Date.now()) throw new OauthGrantError('invalid_grant', 'the refresh token is unknown, expired, revoked or already used');
      if (row.clientId !== input.clientId) throw new OauthGrantError('invalid_grant', 'the refresh token was issued to another client');
      // Spent once: by its mark (a later replay) and by the claim (two presentations racing).
      if (row.usedAt || !(await claims.once(`oauth-refresh:${id}`))) {
        await revokeGrant(row.grantId, 'refresh token used twice', null);
        throw new OauthGrantError('invalid_grant', 'the refresh token is unknown, expired, revoked or already used');
      }
      await OauthRefreshToken.updateOne({ _id: id }, { $set: { usedAt: new Date() } });
      const grant = await OauthGrant.findOneAndUpdate({ _id: row.grantId, revokedAt: null }, { $set: { lastRefreshedAt: new Date() } }, { returnDocument: 'after', lean: true });
      if (!grant) throw new OauthGrantError('invalid_grant', 'the grant was revoked');
      if (input.resource !== null && input.resource !== grant.resource) throw new OauthGrantError('invalid_target', 'resource differs from the one the grant was made for');
      return { grant: toView(grant), refreshToken: await newRefreshToken(grant._id, grant.clientId) };
    },

    async list(actor: Actor, page: { limit?: number } = {}): Promise<GrantView[]> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may see connected clients');
      const rows = await OauthGrant.find().sort({ _id: -1 }).limit(Math.min(page.limit ?? 200, 500)).lean();
      return rows.map(toView);
    },

    /** Revokes a grant: its access tokens stop working within a second everywhere, its refresh tokens at once. */
    async revoke(actor: Actor, grantId: string): Promise<void> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may revoke a connected client');
      if (!(await OauthGrant.exists({ _id: grantId }))) throw new DomainError('NOT_FOUND', `No connected client ${grantId}`);
      await revokeGrant(grantId, `revoked by ${actor.email}`, actor);
    },

    /**
     * Revocation by the client (RFC 7009): the grant a refresh token of `clientId` belongs to, with
     * every token of it. 'unknown' for a token that is not (or no longer) a live refresh token;
     * 'not-yours' for one issued to another client, which is left as it is.
     */
    async revokeRefreshToken(refreshToken: string, clientId: string): Promise<'revoked' | 'unknown' | 'not-yours'> {
      const row = await OauthRefreshToken.findById(digest(refreshToken), { grantId: 1, expiresAt: 1 }).lean();
      if (!row || row.expiresAt.getTime() <= Date.now()) return 'unknown';
      return revokeGrantOfClient(row.grantId, clientId);
    },

    revokeGrantOfClient,

    /** A grant's current state for a token check: read at most once a second per grant (in this process at once after a revoke). */
    current(grantId: string): Promise<GrantView | null> {
      return recent.get(grantId);
    },
  };
}

export type Consents = ReturnType<typeof createConsents>;
