import { randomBytes } from 'node:crypto';
import { constantTimeEqual, sha256Url } from '../../crypto/index.ts';
import { A2A_PERMISSIONS, type A2aPermission, type Models } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import { isAdmin, type Actor } from '../actor.ts';
import { recentReads } from './recent-reads.ts';
import type { AuditTrail } from '../audit-trail.ts';

export interface OauthClientView {
  clientId: string;
  name: string;
  allowedAgents: string[];
  permissions: A2aPermission[];
  allowedPrimitives: string[];
  revoked: boolean;
  secretRotatedAt: string;
  createdAt: string;
}

export interface ClientGrants {
  allowedAgents: string[];
  permissions: A2aPermission[];
  allowedPrimitives?: string[];
}

/** Secrets are 256 random bits, so a plain SHA-256 is enough to make the stored value useless. */
const hashSecret = sha256Url;
const newSecret = () => `svs_${randomBytes(32).toString('base64url')}`;

function toView(row: {
  clientId: string;
  name: string;
  allowedAgents?: string[] | null;
  permissions?: string[] | null;
  allowedPrimitives?: string[] | null;
  revokedAt?: Date | null;
  secretRotatedAt: Date;
  createdAt?: Date | null;
}): OauthClientView {
  return {
    clientId: row.clientId,
    name: row.name,
    allowedAgents: row.allowedAgents ?? [],
    permissions: (row.permissions ?? []) as A2aPermission[],
    allowedPrimitives: row.allowedPrimitives ?? [],
    revoked: !!row.revokedAt,
    secretRotatedAt: row.secretRotatedAt.toISOString(),
    createdAt: (row.createdAt ?? new Date(0)).toISOString(),
  };
}

function validateGrants(grants: ClientGrants): ClientGrants {
  const bad = grants.permissions.filter((p) => !A2A_PERMISSIONS.includes(p));
  if (bad.length) throw new DomainError('VALIDATION_FAILED', `unknown permission(s): ${bad.join(', ')}`);
  const agents = [...new Set(grants.allowedAgents.map((a) => a.trim()).filter(Boolean))];
  const badAgents = agents.filter((agent) => agent !== '*' && !/^@[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/.test(agent));
  if (badAgents.length) throw new DomainError('VALIDATION_FAILED', `allowed agents must be @scope/name or *, not ${badAgents.map((agent) => `"${agent}"`).join(', ')}`);
  const primitives = [...new Set((grants.allowedPrimitives ?? []).map((p) => p.trim()).filter(Boolean))];
  for (const primitive of primitives) {
    if (primitive !== '*' && !/^[a-z][a-z0-9_]*$/.test(primitive)) throw new DomainError('VALIDATION_FAILED', `allowed primitive "${primitive}" must be a primitive or connector name, or *`);
  }
  return { allowedAgents: agents, permissions: [...new Set(grants.permissions)], allowedPrimitives: primitives };
}

/** OAuth client registration, rotation and revocation (admins), and secret checks (token endpoint). */
/** How long a client's grants and revocation state are reused by `current`. */
const CLIENT_STATE_TTL_MS = 1_000;

export function createOauthClients(deps: { models: Models; audit: AuditTrail }) {
  const { OauthClient } = deps.models;
  const recent = recentReads(CLIENT_STATE_TTL_MS, async (clientId): Promise<OauthClientView | null> => {
    const row = await OauthClient.findOne({ clientId }).lean();
    return row ? toView(row) : null;
  });
  const requireAdmin = (actor: Actor) => {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may manage OAuth clients');
  };
  const find = async (clientId: string) => {
    const row = await OauthClient.findOne({ clientId }).lean();
    if (!row) throw new DomainError('NOT_FOUND', `No OAuth client ${clientId}`);
    return row;
  };

  return {
    /** Registers a client; the secret is returned here once and never again. */
    async register(actor: Actor, input: { name: string } & ClientGrants): Promise<{ client: OauthClientView; clientSecret: string }> {
      requireAdmin(actor);
      const grants = validateGrants(input);
      const name = input.name.trim();
      if (!name || name.length > 100) throw new DomainError('VALIDATION_FAILED', 'name must be 1 to 100 characters');
      const clientId = `svc_${randomBytes(12).toString('base64url')}`;
      const clientSecret = newSecret();
      const row = await OauthClient.create({ clientId, name, secretHash: hashSecret(clientSecret), ...grants, secretRotatedAt: new Date(), createdBy: actor.id });
      deps.audit.record(actor, { action: 'oauth_client.register', resourceType: 'oauth_client', resourceId: clientId, details: { name, ...grants } });
      return { client: toView(row), clientSecret };
    },

    async rotateSecret(actor: Actor, clientId: string): Promise<{ clientSecret: string }> {
      requireAdmin(actor);
      const revoked = () => new DomainError('CONFLICT', `OAuth client ${clientId} is revoked; register a new client instead`);
      if ((await find(clientId)).revokedAt) throw revoked();
      const clientSecret = newSecret();
      // The filter keeps a revocation made between the read above and this write from being answered with a secret.
      const { matchedCount } = await OauthClient.updateOne({ clientId, revokedAt: null }, { $set: { secretHash: hashSecret(clientSecret), secretRotatedAt: new Date() } });
      if (matchedCount === 0) throw revoked();
      deps.audit.record(actor, { action: 'oauth_client.rotate', resourceType: 'oauth_client', resourceId: clientId });
      return { clientSecret };
    },

    async revoke(actor: Actor, clientId: string): Promise<void> {
      requireAdmin(actor);
      await find(clientId);
      await OauthClient.updateOne({ clientId }, { $set: { revokedAt: new Date() } });
      recent.forget(clientId);
      deps.audit.record(actor, { action: 'oauth_client.revoke', resourceType: 'oauth_client', resourceId: clientId });
    },

    /** Changes a client's grants, and its name when `name` is given; a revoked client is not changed. */
    async setGrants(actor: Actor, clientId: string, input: ClientGrants & { name?: string }): Promise<OauthClientView> {
      requireAdmin(actor);
      const grants = validateGrants(input);
      const name = input.name?.trim();
      if (name !== undefined && (!name || name.length > 100)) throw new DomainError('VALIDATION_FAILED', 'name must be 1 to 100 characters');
      if ((await find(clientId)).revokedAt) throw new DomainError('CONFLICT', `OAuth client ${clientId} is revoked; register a new client instead`);
      const row = await OauthClient.findOneAndUpdate({ clientId }, { $set: { ...grants, ...(name ? { name } : {}) } }, { returnDocument: 'after', lean: true });
      recent.forget(clientId);
      deps.audit.record(actor, { action: 'oauth_client.grants', resourceType: 'oauth_client', resourceId: clientId, details: { ...grants, ...(name ? { name } : {}) } });
      return toView(row!);
    },

    async list(actor: Actor): Promise<OauthClientView[]> {
      requireAdmin(actor);
      return (await OauthClient.find().sort({ createdAt: -1 }).lean()).map(toView);
    },

    /** The client when id and secret match and it is not revoked; null otherwise, in constant time per secret. */
    async authenticate(clientId: string, clientSecret: string): Promise<OauthClientView | null> {
      const row = clientId.length <= 100 ? await OauthClient.findOne({ clientId }).lean() : null;
      const matches = constantTimeEqual(hashSecret(clientSecret), row?.secretHash ?? hashSecret(newSecret()));
      return row && matches && !row.revokedAt ? toView(row) : null;
    },

    /**
     * Current grants and revocation state, checked on every verified call: read at most once a
     * second per client (so a revocation or grant change made in another process applies within
     * a second; in this process at once, see `forget`).
     */
    current(clientId: string): Promise<OauthClientView | null> {
      return recent.get(clientId);
    },
  };
}

export type OauthClients = ReturnType<typeof createOauthClients>;
