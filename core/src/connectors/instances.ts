import { z } from 'zod';
import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import type { Sealer } from '../crypto/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';

export interface ConnectorInstanceView {
  id: string;
  connector: string;
  name: string;
  siteUrl: string;
  username: string | null;
}

const label = (connector: string, id: string) => `connector.${connector}.${id}.credential`;

const INSTANCE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** A connector instance id, as every connector's primitives take it. */
export const instanceId = z.string().regex(INSTANCE_ID, 'must be a configured instance id');

/**
 * The CMS sites each connector talks to. Credentials are write-only: sealed on save, opened
 * only by the connector's client for one call.
 */
export function createConnectorInstances(deps: { models: Models; sealer: Sealer; audit: AuditLog }) {
  const { ConnectorInstance } = deps.models;
  const view = (row: { _id: string; connector: string; name: string; siteUrl: string; username?: string | null }): ConnectorInstanceView => ({
    id: row._id,
    connector: row.connector,
    name: row.name,
    siteUrl: row.siteUrl,
    username: row.username ?? null,
  });

  return {
    async put(actor: Actor, input: { connector: string; id: string; name: string; siteUrl: string; username?: string | null | undefined; credential?: string | undefined; webhookSecret?: string | undefined }): Promise<ConnectorInstanceView> {
      if (!isAdmin(actor) && actor.type !== 'worker') throw new DomainError('FORBIDDEN', 'Only an admin may configure connector instances');
      if (!INSTANCE_ID.test(input.id)) throw new DomainError('VALIDATION_FAILED', 'instance id: lowercase letters, digits and dashes', { details: [{ path: 'id', reason: 'lowercase letters, digits and dashes' }] });
      if (!URL.canParse(input.siteUrl) || !/^https?:$/.test(new URL(input.siteUrl).protocol) || new URL(input.siteUrl).username) {
        throw new DomainError('VALIDATION_FAILED', 'siteUrl must be an http(s) URL without credentials', { details: [{ path: 'siteUrl', reason: 'http(s) URL without credentials' }] });
      }
      const existing = await ConnectorInstance.findById(input.id).lean();
      if (existing && existing.connector !== input.connector) throw new DomainError('CONFLICT', `instance ${input.id} belongs to ${existing.connector}`);
      if (!existing && !input.credential) throw new DomainError('VALIDATION_FAILED', 'a new instance needs its credential', { details: [{ path: 'credential', reason: 'required' }] });
      // The stored credential belongs to the site it was entered for: a site on another origin
      // needs it entered again, and the webhook secret is dropped unless given anew.
      const moved = !!existing && new URL(existing.siteUrl).origin !== new URL(input.siteUrl).origin;
      if (moved && !input.credential) {
        throw new DomainError('VALIDATION_FAILED', `the site moved to ${new URL(input.siteUrl).origin}: enter its credential again`, { details: [{ path: 'credential', reason: 'the site URL changed origin: enter the credential again' }] });
      }
      const set: Record<string, unknown> = { connector: input.connector, name: input.name, siteUrl: input.siteUrl.replace(/\/+$/, ''), username: input.username ?? null };
      if (input.credential) set.credentialSealed = deps.sealer.seal(input.credential, label(input.connector, input.id));
      if (input.webhookSecret) set.webhookSecretSealed = deps.sealer.seal(input.webhookSecret, `connector.${input.connector}.${input.id}.webhook-secret`);
      else if (moved) set.webhookSecretSealed = null;
      await ConnectorInstance.updateOne({ _id: input.id }, { $set: set }, { upsert: true });
      deps.audit.record(actor, { action: 'connector_instance.save', resourceType: input.connector, resourceId: input.id, details: { siteUrl: set.siteUrl, credentialChanged: !!input.credential } });
      return view({ _id: input.id, ...(set as { connector: string; name: string; siteUrl: string; username: string | null }) });
    },

    /**
     * Removes an instance with everything kept on it: its sealed credential and webhook secret, its
     * widget key and settings (the widget on that site stops at once here, within a second in other
     * processes), and the Undo records of its widget edits, which could no longer reach the site.
     * Runs and turns already under way are not stopped: their next call to the site fails as
     * "No <connector> instance". Saving the same id again starts afresh.
     */
    async remove(actor: Actor, connector: string, id: string): Promise<void> {
      if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may remove connector instances');
      const removed = await ConnectorInstance.findOneAndDelete({ _id: id, connector }).lean();
      if (!removed) throw new DomainError('NOT_FOUND', `No ${connector} instance "${id}"`);
      const edits = await deps.models.WidgetEdit.deleteMany({ connector, instanceId: id });
      deps.audit.record(actor, { action: 'connector_instance.remove', resourceType: connector, resourceId: id, details: { siteUrl: removed.siteUrl, widgetKeyRemoved: !!removed.widget?.keyHash, widgetEditsRemoved: edits.deletedCount } });
    },

    async list(connector: string): Promise<ConnectorInstanceView[]> {
      return (await ConnectorInstance.find({ connector }).sort({ _id: 1 }).lean()).map(view);
    },

    /** The webhook secret, opened for signing one notification; null when none is configured. */
    async webhookSecret(connector: string, id: string): Promise<{ siteUrl: string; secret: string } | null> {
      const row = await ConnectorInstance.findById(id).lean();
      if (!row || row.connector !== connector || !row.webhookSecretSealed) return null;
      return { siteUrl: row.siteUrl, secret: deps.sealer.open(row.webhookSecretSealed, `connector.${connector}.${id}.webhook-secret`) };
    },

    /** The instance with its credential opened, for one call of its connector's client. */
    async withCredential(connector: string, id: string): Promise<ConnectorInstanceView & { credential: string }> {
      const row = await ConnectorInstance.findById(id).lean();
      if (!row || row.connector !== connector) throw new DomainError('NOT_FOUND', `No ${connector} instance "${id}"`);
      return { ...view(row), credential: deps.sealer.open(row.credentialSealed, label(connector, id)) };
    },
  };
}

export type ConnectorInstances = ReturnType<typeof createConnectorInstances>;
