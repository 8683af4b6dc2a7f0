import { Types } from 'mongoose';
import { createActorNames, type Actor, type AuditTrail } from '../auth/index.ts';
import { readPage, type AuditEventRecord, type Models } from '../db/index.ts';
import type { Logger } from '../log/index.ts';
import { DomainError } from '../errors/index.ts';
import { boundDetails } from './summarise.ts';

export interface AuditEntry {
  action: string;
  resourceType: string;
  resourceId?: string;
  details?: Record<string, unknown>;
}

export interface AuditRow extends AuditEntry {
  id: string;
  /** `name`: the admin's email or the OAuth client's name, when the actor is one of those and still known. */
  actor: { type: Actor['type']; id: string; name?: string };
  at: string;
}

/** What an audit page may be narrowed to; each is optional. */
export interface AuditFilter {
  /** The actor: an admin's email, an OAuth client id, or an actor id as stored (`oauth:<clientId>`, a user id, …). */
  actor?: string;
  /** An action, or a prefix of one ending in `.` (`a2a.` for every A2A action). */
  action?: string;
  /** Events at or after / before these times. */
  from?: Date;
  to?: Date;
}

export interface AuditPage {
  items: AuditRow[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface AuditLog extends AuditTrail {
  /**
   * Fire-and-forget: returns at once, never throws; a failed write is logged. `details` larger
   * than MAX_AUDIT_DETAILS_BYTES are stored as their bounded summary (summariseInput).
   */
  record(actor: Actor, entry: AuditEntry): void;
  list(options?: { limit?: number; cursor?: string | null; filter?: AuditFilter }): Promise<AuditPage>;
  /** Resolves when every write started so far has settled (for orderly shutdown and tests). */
  flush(): Promise<void>;
}

export function createAuditLog(models: Models, logger: Logger): AuditLog {
  const { AuditEvent, User, OauthClient } = models;
  const pending = new Set<Promise<unknown>>();

  /** The stored actor id an admin means by an email, a client id, or the id itself. */
  async function actorIdOf(actor: string): Promise<string> {
    const value = actor.trim();
    if (value.includes('@')) {
      const user = await User.findOne({ email: value.toLowerCase() }, { _id: 1 }).lean();
      return user ? String(user._id) : `unknown:${value}`;
    }
    if (!value.includes(':') && (await OauthClient.exists({ clientId: value }))) return `oauth:${value}`;
    return value;
  }

  const actorNames = createActorNames(models);

  return {
    record(actor, entry) {
      let write: Promise<unknown>;
      try {
        write = AuditEvent.create({
          actorType: actor.type,
          actorId: actor.id,
          action: entry.action,
          resourceType: entry.resourceType,
          resourceId: entry.resourceId,
          details: boundDetails(entry.details),
          at: new Date(),
        }).catch((error: unknown) => {
          logger.error('audit write failed', { error, action: entry.action, resourceType: entry.resourceType, resourceId: entry.resourceId });
        });
      } catch (error) {
        logger.error('audit write failed', { error, action: entry.action, resourceType: entry.resourceType });
        return;
      }
      pending.add(write);
      void write.finally(() => pending.delete(write));
    },

    async list({ limit = 50, cursor = null, filter = {} } = {}) {
      const size = Math.min(Math.max(limit, 1), 200);
      // ObjectIds start with their creation second, so newest first is an `_id` range, and so is
      // a time range: a page costs the same however long the log is. Actor and action narrow the
      // rows of that range as they are read (no secondary index on this write-heavy collection, see
      // docs/data-model.md): a rare actor over a long range reads far; give it a time range.
      const idRange: Record<string, Types.ObjectId> = {};
      if (cursor) idRange.$lt = new Types.ObjectId(cursorId(cursor));
      if (filter.to) {
        const before = Types.ObjectId.createFromTime(Math.ceil(filter.to.getTime() / 1000));
        if (!idRange.$lt || before < idRange.$lt) idRange.$lt = before;
      }
      if (filter.from) idRange.$gte = Types.ObjectId.createFromTime(Math.floor(filter.from.getTime() / 1000));
      const query: Record<string, unknown> = Object.keys(idRange).length ? { _id: idRange } : {};
      if (filter.actor) query.actorId = await actorIdOf(filter.actor);
      if (filter.action) query.action = filter.action.endsWith('.') ? { $regex: `^${filter.action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` } : filter.action;
      const rows = await readPage<AuditEventRecord & { _id: Types.ObjectId }>(AuditEvent.collection, query, { sort: { _id: -1 }, limit: size + 1 });
      const page = rows.slice(0, size);
      const last = page[page.length - 1];
      const names = await actorNames(page.map((row) => ({ type: row.actorType, id: row.actorId })));
      return {
        items: page.map((row) => ({
          id: String(row._id),
          actor: { type: row.actorType as Actor['type'], id: row.actorId, ...(names.has(`${row.actorType}:${row.actorId}`) ? { name: names.get(`${row.actorType}:${row.actorId}`)! } : {}) },
          action: row.action,
          resourceType: row.resourceType,
          ...(row.resourceId ? { resourceId: row.resourceId } : {}),
          details: (row.details ?? {}) as Record<string, unknown>,
          at: row.at.toISOString(),
        })),
        nextCursor: rows.length > size && last ? String(last._id) : null,
      };
    },

    async flush() {
      await Promise.allSettled([...pending]);
    },
  };
}

/** A cursor is the id of the last row of the previous page. */
function cursorId(cursor: string): string {
  if (/^[a-f0-9]{24}$/.test(cursor)) return cursor;
  throw new DomainError('VALIDATION_FAILED', 'Invalid audit cursor', { details: [{ path: 'cursor', reason: 'not a cursor returned by audit.list' }] });
}
