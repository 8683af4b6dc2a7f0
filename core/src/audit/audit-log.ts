import { Types } from 'mongoose';
import type { Actor } from '../auth/index.ts';
import type { Models } from '../db/index.ts';
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
  actor: { type: Actor['type']; id: string };
  at: string;
}

export interface AuditPage {
  items: AuditRow[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

export interface AuditLog {
  /**
   * Fire-and-forget: returns at once, never throws; a failed write is logged. `details` larger
   * than MAX_AUDIT_DETAILS_BYTES are stored as their bounded summary (summariseInput).
   */
  record(actor: Actor, entry: AuditEntry): void;
  list(options?: { limit?: number; cursor?: string | null }): Promise<AuditPage>;
  /** Resolves when every write started so far has settled (for orderly shutdown and tests). */
  flush(): Promise<void>;
}

export function createAuditLog(models: Models, logger: Logger): AuditLog {
  const { AuditEvent } = models;
  const pending = new Set<Promise<unknown>>();

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

    async list({ limit = 50, cursor = null } = {}) {
      const size = Math.min(Math.max(limit, 1), 200);
      // ObjectIds start with their creation second, so newest first is an `_id` range: a page
      // costs the same however long the log is.
      const filter = cursor ? { _id: { $lt: new Types.ObjectId(cursorId(cursor)) } } : {};
      const rows = await AuditEvent.find(filter).sort({ _id: -1 }).limit(size + 1).lean();
      const page = rows.slice(0, size);
      const last = page[page.length - 1];
      return {
        items: page.map((row) => ({
          id: String(row._id),
          actor: { type: row.actorType as Actor['type'], id: row.actorId },
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
