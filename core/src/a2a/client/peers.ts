import { isAdmin, type Actor } from '../../auth/index.ts';
import type { Sealer } from '../../crypto/index.ts';
import type { Models } from '../../db/index.ts';
import { DomainError } from '../../errors/index.ts';
import type { AuditLog } from '../../audit/index.ts';

export interface RemotePeerView {
  id: string;
  name: string;
  baseUrl: string;
  clientId: string;
  /** `auto`: A2A v1.0 when the peer's card offers it, else v0.3; `0.3`: always v0.3. */
  protocol: PeerProtocol;
}

export type PeerProtocol = 'auto' | '0.3';

const label = (id: string) => `peer.${id}.client-secret`;

/** Remote instances registered by an admin; the client secret is sealed and only opened to get a token. */
export function createRemotePeers(deps: { models: Models; sealer: Sealer; audit: AuditLog }) {
  const { RemotePeer } = deps.models;
  const view = (row: { _id: string; name: string; baseUrl: string; clientId: string; protocol?: string | null }): RemotePeerView => ({ id: row._id, name: row.name, baseUrl: row.baseUrl, clientId: row.clientId, protocol: row.protocol === '0.3' ? '0.3' : 'auto' });

  return {
    async register(actor: Actor, input: { id: string; name: string; baseUrl: string; clientId: string; clientSecret: string; protocol?: PeerProtocol }): Promise<RemotePeerView> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may register remote peers');
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(input.id)) throw new DomainError('VALIDATION_FAILED', 'peer id: lowercase letters, digits and dashes');
      if (!URL.canParse(input.baseUrl) || !/^https?:$/.test(new URL(input.baseUrl).protocol) || new URL(input.baseUrl).username) {
        throw new DomainError('VALIDATION_FAILED', 'baseUrl must be an http(s) origin without credentials');
      }
      const baseUrl = new URL(input.baseUrl).origin;
      const protocol: PeerProtocol = input.protocol === '0.3' ? '0.3' : 'auto';
      await RemotePeer.updateOne(
        { _id: input.id },
        { $set: { name: input.name, baseUrl, clientId: input.clientId, clientSecretSealed: deps.sealer.seal(input.clientSecret, label(input.id)), protocol, createdBy: actor.id } },
        { upsert: true },
      );
      deps.audit.record(actor, { action: 'remote_peer.register', resourceType: 'remote_peer', resourceId: input.id, details: { baseUrl, clientId: input.clientId, protocol } });
      return { id: input.id, name: input.name, baseUrl, clientId: input.clientId, protocol };
    },

    async list(): Promise<RemotePeerView[]> {
      return (await RemotePeer.find().sort({ _id: 1 }).lean()).map(view);
    },

    async get(id: string): Promise<RemotePeerView | null> {
      const row = await RemotePeer.findById(id).lean();
      return row ? view(row) : null;
    },

    /** The peer with its client secret, for the token exchange only. */
    async credentials(id: string): Promise<(RemotePeerView & { clientSecret: string }) | null> {
      const row = await RemotePeer.findById(id).lean();
      return row ? { ...view(row), clientSecret: deps.sealer.open(row.clientSecretSealed, label(id)) } : null;
    },
  };
}

export type RemotePeers = ReturnType<typeof createRemotePeers>;
