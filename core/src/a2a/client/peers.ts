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
  /** ISO time a call to it last got an answer; null before the first. */
  lastContactAt: string | null;
  /** The last failed call's reason and time, until an answer clears it. */
  lastError: { at: string; message: string } | null;
}

/** What a call to a peer came to, for its status. */
export type PeerOutcome = { ok: true } | { ok: false; message: string };

/** While a peer's status does not change, it is written at most this often. */
const STATUS_WRITE_INTERVAL_MS = 60_000;

export type PeerProtocol = 'auto' | '0.3';

const label = (id: string) => `peer.${id}.client-secret`;

/** Remote instances registered by an admin; the client secret is sealed and only opened to get a token. */
export function createRemotePeers(deps: { models: Models; sealer: Sealer; audit: AuditLog }) {
  const { RemotePeer } = deps.models;
  type Row = { _id: string; name: string; baseUrl: string; clientId: string; protocol?: string | null; lastContactAt?: Date | null; lastError?: { at: Date; message: string } | null };
  const view = (row: Row): RemotePeerView => ({
    id: row._id,
    name: row.name,
    baseUrl: row.baseUrl,
    clientId: row.clientId,
    protocol: row.protocol === '0.3' ? '0.3' : 'auto',
    lastContactAt: row.lastContactAt ? row.lastContactAt.toISOString() : null,
    lastError: row.lastError ? { at: row.lastError.at.toISOString(), message: row.lastError.message } : null,
  });
  const written = new Map<string, { state: string; at: number }>();

  return {
    /**
     * Registers a peer, or changes one: an edit may leave `clientSecret` out to keep the sealed
     * one. Its status is kept.
     */
    async register(actor: Actor, input: { id: string; name: string; baseUrl: string; clientId: string; clientSecret?: string; protocol?: PeerProtocol }): Promise<RemotePeerView> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may register remote peers');
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(input.id)) throw new DomainError('VALIDATION_FAILED', 'peer id: lowercase letters, digits and dashes');
      if (!URL.canParse(input.baseUrl) || !/^https?:$/.test(new URL(input.baseUrl).protocol) || new URL(input.baseUrl).username) {
        throw new DomainError('VALIDATION_FAILED', 'baseUrl must be an http(s) origin without credentials');
      }
      const baseUrl = new URL(input.baseUrl).origin;
      const protocol: PeerProtocol = input.protocol === '0.3' ? '0.3' : 'auto';
      const secret = input.clientSecret ? { clientSecretSealed: deps.sealer.seal(input.clientSecret, label(input.id)) } : {};
      const fields = { name: input.name, baseUrl, clientId: input.clientId, protocol, createdBy: actor.id, ...secret };
      // Without a secret only an existing peer is changed: nothing is created without credentials.
      const row = input.clientSecret
        ? await RemotePeer.findOneAndUpdate({ _id: input.id }, { $set: fields }, { upsert: true, returnDocument: 'after', lean: true })
        : await RemotePeer.findOneAndUpdate({ _id: input.id }, { $set: fields }, { returnDocument: 'after', lean: true });
      if (!row) throw new DomainError('VALIDATION_FAILED', 'A new peer needs the client secret its admin issued', { details: [{ path: 'clientSecret', reason: 'Enter the client secret the peer issued.' }] });
      deps.audit.record(actor, { action: 'remote_peer.register', resourceType: 'remote_peer', resourceId: input.id, details: { baseUrl, clientId: input.clientId, protocol, secretChanged: !!input.clientSecret } });
      return view(row);
    },

    /** Removes a peer and its sealed secret; runs bridged from it keep their history. */
    async remove(actor: Actor, id: string): Promise<void> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may remove remote peers');
      const { deletedCount } = await RemotePeer.deleteOne({ _id: id });
      if (!deletedCount) throw new DomainError('NOT_FOUND', `No remote peer ${id}`);
      written.delete(id);
      deps.audit.record(actor, { action: 'remote_peer.remove', resourceType: 'remote_peer', resourceId: id, details: {} });
    },

    /**
     * Records what a call to the peer came to: the time of the last answer, or the last failure's
     * reason. A change of state is written at once; while it stays the same, once a minute at most.
     */
    async noteOutcome(id: string, outcome: PeerOutcome): Promise<void> {
      const state = outcome.ok ? 'ok' : outcome.message;
      const before = written.get(id);
      if (before && before.state === state && Date.now() - before.at < STATUS_WRITE_INTERVAL_MS) return;
      written.set(id, { state, at: Date.now() });
      const now = new Date();
      await RemotePeer.updateOne({ _id: id }, outcome.ok ? { $set: { lastContactAt: now, lastError: null } } : { $set: { lastError: { at: now, message: outcome.message.slice(0, 500) } } });
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
