import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, isDomainError } from '../errors/index.ts';
import { isDuplicateKeyError, type Models, type UserRole } from '../db/index.ts';
import { systemActor, type UiActor, type WorkerActor } from './actor.ts';
import type { AuditTrail } from './audit-trail.ts';
import { assertPasswordPolicy, generatePassword, hashPassword } from './passwords.ts';
import type { SessionStore, SessionSummary } from './sessions.ts';
import type { SignIn } from './sign-in.ts';
import type { UserStore } from './users.ts';

/** One row of the users page. */
export interface UserSummary {
  id: string;
  email: string;
  role: UserRole;
  createdAt: Date;
}

export interface UserPage {
  users: UserSummary[];
  /** The email to pass as `after` for the next page; null on the last page. */
  next: string | null;
}

export const LAST_ADMIN = 'The last admin cannot be demoted or removed: make another user an admin first.';

/**
 * The claim every write to a user row is made under (see `underUsersClaim`): role changes and
 * removals (the last-admin rule) and password changes (FerretDB 1.24 writes the whole document
 * back, so a concurrent role change and password change could otherwise lose one of them).
 */
export const USERS_CLAIM = 'users:change';
/** A claim older than this was left by a process that died mid-change; the next change takes it over. */
export const USERS_CLAIM_STALE_MS = 30_000;
const USERS_CLAIM_WAIT_MS = 10_000;

const OBJECT_ID = /^[a-f0-9]{24}$/i;

export interface Accounts {
  /** A page of users in email order, read from the unique email index. */
  list(input: { limit: number; after: string | null }): Promise<UserPage>;
  /** Creates a user. Without a password one is generated and answered once (`password`); it is never logged or audited. */
  create(actor: UiActor | WorkerActor, input: { email: string; role: UserRole; password?: string }): Promise<{ user: UserSummary; password: string | null }>;
  /** Changes a user's role. Refused when it would leave no admin. */
  setRole(actor: UiActor, userId: string, role: UserRole): Promise<UserSummary>;
  /** Removes a user and ends their sessions at once. Refused when it would leave no admin. */
  remove(actor: UiActor, userId: string): Promise<void>;
  /**
   * The signed-in user's own change: the current password is checked as a sign-in is (the same
   * throttle for this account and `address`, failures audited), then every other session ends.
   */
  changePassword(actor: UiActor, input: { currentPassword: string; newPassword: string; sessionId: string | null; address?: string }): Promise<{ endedSessions: number }>;
  /** Sets a new password without the old one (admin:create --reset-password) and ends all the user's sessions. */
  resetPassword(email: string, newPassword: string, source: string): Promise<UserSummary>;
  sessions(actor: UiActor, currentSessionId: string | null): Promise<SessionSummary[]>;
  /** Ends every session of the actor except the one presenting `currentSessionId`. */
  signOutOthers(actor: UiActor, currentSessionId: string | null): Promise<number>;
}

/**
 * Users and their sessions as admins and the signed-in user manage them. Every change is audited,
 * never with a password.
 *
 * The last-admin rule must hold when two admins demote each other at once. FerretDB 1.24 does
 * not re-check an update's filter, so "demote unless last" cannot be one conditional write; every
 * write to a user row runs while holding one insert-won claim row instead (ADR 0043), and the
 * last-admin check re-reads the admins inside it.
 */
export function createAccounts(deps: { models: Models; users: UserStore; sessions: SessionStore; signIn: SignIn; audit: AuditTrail; wait?: (ms: number) => Promise<unknown>; now?: () => number }): Accounts {
  const { User, Claim } = deps.models;
  const wait = deps.wait ?? sleep;
  const now = deps.now ?? Date.now;

  const summary = (user: { _id: unknown; email: string; role: UserRole; createdAt?: Date }): UserSummary => ({ id: String(user._id), email: user.email, role: user.role, createdAt: user.createdAt ?? new Date(0) });

  async function findUser(userId: string) {
    const user = OBJECT_ID.test(userId) ? await User.findById(userId).lean() : null;
    if (!user) throw new DomainError('NOT_FOUND', 'No such user');
    return user;
  }

  /** Runs `change` while this caller alone holds the users claim; waits its turn for a bounded time. */
  async function underUsersClaim<T>(change: () => Promise<T>): Promise<T> {
    const owner = randomUUID();
    const deadline = now() + USERS_CLAIM_WAIT_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await Claim.create({ _id: USERS_CLAIM, owner, at: new Date(now()) });
        break;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
      }
      const held = await Claim.findById(USERS_CLAIM).lean();
      if (held && now() - held.at.getTime() > USERS_CLAIM_STALE_MS) {
        await Claim.deleteOne({ _id: USERS_CLAIM, owner: held.owner });
        continue;
      }
      if (now() > deadline) throw new DomainError('CONFLICT', 'Another change to the users is in progress. Try again in a moment.');
      await wait(Math.min(200, 10 * 2 ** Math.min(attempt, 5)) + Math.floor(Math.random() * 10));
    }
    try {
      return await change();
    } finally {
      await Claim.deleteOne({ _id: USERS_CLAIM, owner });
    }
  }

  /** Inside the claim: the actor must still be an admin (another admin may have just demoted them). */
  async function assertStillAdmin(actor: UiActor) {
    const self = OBJECT_ID.test(actor.id) ? await User.findById(actor.id).lean() : null;
    if (self?.role !== 'admin') throw new DomainError('FORBIDDEN', 'Admins only');
  }

  async function assertAnotherAdmin(userId: string) {
    const others = await User.countDocuments({ role: 'admin', _id: { $ne: userId } });
    if (others === 0) throw new DomainError('CONFLICT', LAST_ADMIN);
  }

  return {
    async list({ limit, after }) {
      const rows = await User.find(after ? { email: { $gt: after } } : {}, { email: 1, role: 1, createdAt: 1 })
        .sort({ email: 1 })
        .limit(limit + 1)
        .lean();
      const users = rows.slice(0, limit).map(summary);
      return { users, next: rows.length > limit ? (users.at(-1)?.email ?? null) : null };
    },

    async create(actor, { email, role, password }) {
      const chosen = password ?? generatePassword();
      const created = await deps.users.create({ email, password: chosen, role });
      const row = await findUser(created.id);
      deps.audit.record(actor, { action: 'user.create', resourceType: 'user', resourceId: created.id, details: { email: created.email, role, source: actor.type === 'ui' ? 'ui' : 'cli', passwordGenerated: password === undefined } });
      return { user: summary(row), password: password === undefined ? chosen : null };
    },

    async setRole(actor, userId, role) {
      return underUsersClaim(async () => {
        await assertStillAdmin(actor);
        const user = await findUser(userId);
        if (user.role === role) return summary(user);
        if (user.role === 'admin') await assertAnotherAdmin(userId);
        await User.updateOne({ _id: userId }, { $set: { role } });
        deps.audit.record(actor, { action: 'user.role.change', resourceType: 'user', resourceId: userId, details: { email: user.email, from: user.role, to: role } });
        return summary({ ...user, role });
      });
    },

    async remove(actor, userId) {
      await underUsersClaim(async () => {
        await assertStillAdmin(actor);
        const user = await findUser(userId);
        if (user.role === 'admin') await assertAnotherAdmin(userId);
        await User.deleteOne({ _id: userId });
        const ended = await deps.sessions.endAllFor(userId, null);
        deps.audit.record(actor, { action: 'user.remove', resourceType: 'user', resourceId: userId, details: { email: user.email, role: user.role, endedSessions: ended } });
      });
    },

    async changePassword(actor, { currentPassword, newPassword, sessionId, address }) {
      assertPasswordPolicy(newPassword, 'newPassword');
      const user = await findUser(actor.id);
      // A stolen session must not become a free password oracle: the check counts as a sign-in.
      await deps.signIn.attempt({ email: user.email, password: currentPassword, ...(address ? { address } : {}) }).catch((error: unknown) => {
        if (isDomainError(error) && error.code === 'UNAUTHENTICATED') {
          throw new DomainError('VALIDATION_FAILED', 'The current password is not right', { details: [{ path: 'currentPassword', reason: 'The current password is not right.' }] });
        }
        throw error;
      });
      const passwordHash = await hashPassword(newPassword);
      await underUsersClaim(() => User.updateOne({ _id: user._id }, { $set: { passwordHash } }));
      const endedSessions = await deps.sessions.endAllFor(actor.id, sessionId);
      deps.audit.record(actor, { action: 'user.password.change', resourceType: 'user', resourceId: actor.id, details: { endedSessions } });
      return { endedSessions };
    },

    async resetPassword(email, newPassword, source) {
      assertPasswordPolicy(newPassword);
      const user = await User.findOne({ email: email.trim().toLowerCase() }).lean();
      if (!user) throw new DomainError('NOT_FOUND', `No user with email ${email.trim().toLowerCase()}`);
      const passwordHash = await hashPassword(newPassword);
      await underUsersClaim(() => User.updateOne({ _id: user._id }, { $set: { passwordHash } }));
      const endedSessions = await deps.sessions.endAllFor(String(user._id), null);
      deps.audit.record(systemActor(source), { action: 'user.password.reset', resourceType: 'user', resourceId: String(user._id), details: { email: user.email, source, endedSessions } });
      return summary(user);
    },

    sessions: (actor, currentSessionId) => deps.sessions.listFor(actor.id, currentSessionId),

    async signOutOthers(actor, currentSessionId) {
      const ended = await deps.sessions.endAllFor(actor.id, currentSessionId);
      deps.audit.record(actor, { action: 'session.sign-out-others', resourceType: 'user', resourceId: actor.id, details: { endedSessions: ended } });
      return ended;
    },
  };
}
