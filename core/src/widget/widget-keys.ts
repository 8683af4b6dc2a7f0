import { createHash, randomBytes } from 'node:crypto';
import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import { constantTimeEqual } from '../crypto/index.ts';
import type { Models } from '../db/index.ts';
import { DomainError } from '../errors/index.ts';
import { PACKAGE_NAME } from '../agents/index.ts';

/** Widget API key format: `swk_` + 32 random bytes, base64url (43 characters). */
const newKey = () => `swk_${randomBytes(32).toString('base64url')}`;
const hash = (key: string) => createHash('sha256').update(key).digest('base64url');

export const DEFAULT_HISTORY_TURNS = 10;
/** The most turns an instance may pass to the LLM (`historyTurns`); the widget never sends more. */
export const MAX_HISTORY_TURNS = 50;
const CACHE_MS = 1_000;

export interface WidgetSettings {
  instanceId: string;
  connector: string;
  siteOrigin: string;
  allowedOrigins: string[];
  historyTurns: number;
  /** The agent whose skills the widget's turn may call as tools, or null. */
  assistantAgent: string | null;
  keySet: boolean;
  keyPrefix: string | null;
  /** When its key was revoked, while no new one has been generated (ISO 8601); else null. */
  revokedAt: string | null;
}

/**
 * Widget API keys and widget settings per connector instance, kept apart from the instance's
 * content credential: rotating either never touches the other.
 */
export function createWidgetKeys(deps: { models: Models; audit: AuditLog }) {
  const { ConnectorInstance } = deps.models;
  const requireAdmin = (actor: Actor) => {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may manage widget keys');
  };
  // Every widget request reads the instance twice (origin, then key); a one-second cache keeps
  // that off the database. Changes made here clear it at once; other processes see them within 1 s.
  const cache = new Map<string, { at: number; row: Awaited<ReturnType<typeof fetchRow>> }>();
  const fetchRow = (instanceId: string) => ConnectorInstance.findById(instanceId).lean();
  const load = async (connector: string, instanceId: string) => {
    if (instanceId.length > 63) return null;
    let entry = cache.get(instanceId);
    if (!entry || Date.now() - entry.at > CACHE_MS) {
      entry = { at: Date.now(), row: await fetchRow(instanceId) };
      cache.set(instanceId, entry);
      if (cache.size > 1_000) cache.delete(cache.keys().next().value!);
    }
    return entry.row && entry.row.connector === connector ? entry.row : null;
  };

  return {
    /** Generates (or rotates to) a new key; the key is returned this once, only its hash is kept. */
    async rotate(actor: Actor, connector: string, instanceId: string): Promise<{ key: string }> {
      requireAdmin(actor);
      if (!(await load(connector, instanceId))) throw new DomainError('NOT_FOUND', `No ${connector} instance "${instanceId}"`);
      const key = newKey();
      await ConnectorInstance.updateOne({ _id: instanceId }, { $set: { 'widget.keyHash': hash(key), 'widget.keyPrefix': key.slice(0, 8), 'widget.revokedAt': null } });
      cache.delete(instanceId);
      deps.audit.record(actor, { action: 'widget_key.rotate', resourceType: `${connector}_widget_auth`, resourceId: instanceId });
      return { key };
    },

    async revoke(actor: Actor, connector: string, instanceId: string): Promise<void> {
      requireAdmin(actor);
      const revoked = await ConnectorInstance.updateOne({ _id: instanceId, connector, 'widget.keyHash': { $ne: null } }, { $set: { 'widget.keyHash': null, 'widget.keyPrefix': null, 'widget.revokedAt': new Date() } });
      if (revoked.matchedCount === 0) throw new DomainError('NOT_FOUND', `No widget key to revoke on ${connector} instance "${instanceId}"`);
      cache.delete(instanceId);
      deps.audit.record(actor, { action: 'widget_key.revoke', resourceType: `${connector}_widget_auth`, resourceId: instanceId });
    },

    async configure(actor: Actor, connector: string, instanceId: string, input: { allowedOrigins?: string[]; historyTurns?: number; assistantAgent?: string | null }): Promise<void> {
      requireAdmin(actor);
      const origins = (input.allowedOrigins ?? []).map((o) => o.trim()).filter(Boolean);
      for (const origin of origins) {
        if (!URL.canParse(origin) || new URL(origin).origin !== origin) throw new DomainError('VALIDATION_FAILED', `"${origin}" is not an origin (scheme://host[:port])`, { details: [{ path: 'allowedOrigins', reason: origin }] });
      }
      const set: Record<string, unknown> = {};
      if (input.allowedOrigins) set['widget.allowedOrigins'] = origins;
      if (input.historyTurns !== undefined) {
        if (!Number.isInteger(input.historyTurns) || input.historyTurns < 1 || input.historyTurns > MAX_HISTORY_TURNS) throw new DomainError('VALIDATION_FAILED', `historyTurns must be 1 to ${MAX_HISTORY_TURNS}`, { details: [{ path: 'historyTurns', reason: `1 to ${MAX_HISTORY_TURNS}` }] });
        set['widget.historyTurns'] = input.historyTurns;
      }
      if (input.assistantAgent !== undefined) {
        const agent = input.assistantAgent?.trim() || null;
        if (agent !== null && !PACKAGE_NAME.test(agent)) throw new DomainError('VALIDATION_FAILED', `"${agent}" is not an agent package name (@vendor/slug)`, { details: [{ path: 'assistantAgent', reason: 'an agent package name, @vendor/slug' }] });
        set['widget.assistantAgent'] = agent;
      }
      await ConnectorInstance.updateOne({ _id: instanceId, connector }, { $set: set });
      cache.delete(instanceId);
      deps.audit.record(actor, { action: 'widget.configure', resourceType: `${connector}_widget_auth`, resourceId: instanceId, details: set });
    },

    async settings(connector: string, instanceId: string): Promise<WidgetSettings | null> {
      const row = await load(connector, instanceId);
      if (!row) return null;
      const siteOrigin = new URL(row.siteUrl).origin;
      return {
        instanceId,
        connector,
        siteOrigin,
        // The CMS site itself is always allowed; more origins (an admin host, a preview) may be added.
        allowedOrigins: [...new Set([siteOrigin, ...(row.widget?.allowedOrigins ?? [])])],
        historyTurns: row.widget?.historyTurns ?? DEFAULT_HISTORY_TURNS,
        assistantAgent: row.widget?.assistantAgent ?? null,
        keySet: !!row.widget?.keyHash,
        keyPrefix: row.widget?.keyPrefix ?? null,
        revokedAt: row.widget?.revokedAt?.toISOString() ?? null,
      };
    },

    /** Constant-time check of a presented key against the instance's stored hash. */
    async verify(connector: string, instanceId: string, presented: string | null): Promise<boolean> {
      const row = await load(connector, instanceId);
      const stored = row?.widget?.keyHash ?? null;
      const ok = constantTimeEqual(hash(presented ?? ''), stored ?? hash(newKey()));
      return ok && !!stored && !!presented;
    },
  };
}

export type WidgetKeys = ReturnType<typeof createWidgetKeys>;
