import type { AuditLog } from '../audit/index.ts';
import { isAdmin, type Actor } from '../auth/index.ts';
import { DomainError } from '../errors/index.ts';
import { isDuplicateKeyError, type Models } from '../db/index.ts';

const CACHE_MS = 1_000;

/**
 * Instance-wide settings an admin changes at runtime (stored in `settings`, one document each):
 * read through a one-second cache per process, so a change applies at once in the process that
 * made it and within a second elsewhere; every change is audited.
 */
export function createSettings(deps: { models: Models; audit: AuditLog }) {
  const { Setting } = deps.models;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();

  function get<T>(name: string): Promise<T | null> {
    const hit = cache.get(name);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.value as Promise<T | null>;
    const value = Setting.findById(name).lean().then((row) => (row?.value ?? null) as T | null);
    cache.set(name, { at: Date.now(), value });
    value.catch(() => cache.delete(name));
    return value;
  }

  async function set(actor: Actor, name: string, value: unknown): Promise<void> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Only an admin may change settings');
    await Setting.updateOne({ _id: name }, { $set: { value } }, { upsert: true });
    cache.delete(name);
    deps.audit.record(actor, { action: 'settings.update', resourceType: 'setting', resourceId: name, details: { value } });
  }

  /** Stores `value` under `name` unless something is stored already (a first start); true when it stored. */
  async function initialise(name: string, value: unknown): Promise<boolean> {
    try {
      await Setting.create({ _id: name, value });
      cache.delete(name);
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  return { get, set, initialise };
}

export type Settings = ReturnType<typeof createSettings>;

/** The agent (`@vendor/slug`) a message that names none goes to. */
export const DEFAULT_AGENT_SETTING = 'a2a.defaultAgent';
