import { randomBytes } from 'node:crypto';
import { sha256Url } from '../crypto/index.ts';
import type { Models } from '../db/index.ts';
import type { UiActor } from './actor.ts';
import { databaseUnavailable, type UserStore } from './users.ts';

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface SessionStore {
  /** Creates a session row and returns the opaque id for the cookie. Only its hash is stored. */
  create(actor: UiActor, meta?: { userAgent?: string }): Promise<{ sessionId: string; expiresAt: Date }>;
  /**
   * The session's user, or null when the id is unknown, expired or signed out. A database that
   * does not answer is DEPENDENCY_UNAVAILABLE (503), never null.
   */
  resolve(sessionId: string): Promise<UiActor | null>;
  destroy(sessionId: string): Promise<void>;
  /** The user's sessions that have not expired, newest first; `current` marks the one presenting `currentSessionId`. */
  listFor(userId: string, currentSessionId: string | null): Promise<SessionSummary[]>;
  /** Ends every session of the user except `keepSessionId` (none kept when null); answers how many ended. */
  endAllFor(userId: string, keepSessionId: string | null): Promise<number>;
}

/** What the account page shows of a session: only what the row holds, never its id or hash. */
export interface SessionSummary {
  createdAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  current: boolean;
}

/** A user has a handful of sessions; a list this long is only ever reached by a script signing in in a loop. */
const MAX_LISTED_SESSIONS = 100;

const hashId = sha256Url;

export function createSessionStore(models: Models, users: UserStore, now: () => Date = () => new Date()): SessionStore {
  const { Session } = models;
  return {
    async create(actor, meta = {}) {
      const sessionId = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now().getTime() + SESSION_TTL_MS);
      await Session.deleteMany({ expiresAt: { $lte: now() } });
      await Session.create({ _id: hashId(sessionId), userId: actor.id, expiresAt, lastSeenAt: now(), userAgent: meta.userAgent });
      return { sessionId, expiresAt };
    },

    async resolve(sessionId) {
      if (!sessionId || sessionId.length > 128) return null;
      const session = await Session.findById(hashId(sessionId))
        .lean()
        .catch((error: unknown) => {
          throw databaseUnavailable(error, 'the session could not be checked');
        });
      if (!session || session.expiresAt.getTime() <= now().getTime()) return null;
      return users.findActor(String(session.userId));
    },

    async destroy(sessionId) {
      await Session.deleteOne({ _id: hashId(sessionId) });
    },

    async listFor(userId, currentSessionId) {
      const current = currentSessionId ? hashId(currentSessionId) : null;
      const rows = await Session.find({ userId, expiresAt: { $gt: now() } })
        .sort({ createdAt: -1 })
        .limit(MAX_LISTED_SESSIONS)
        .lean();
      return rows.map((row) => ({ createdAt: row.createdAt, expiresAt: row.expiresAt, userAgent: row.userAgent ?? null, current: row._id === current }));
    },

    async endAllFor(userId, keepSessionId) {
      const filter = keepSessionId ? { userId, _id: { $ne: hashId(keepSessionId) } } : { userId };
      const result = await Session.deleteMany(filter);
      return result.deletedCount;
    },
  };
}
