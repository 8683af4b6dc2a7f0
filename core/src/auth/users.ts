import { DomainError } from '../errors/index.ts';
import { isDuplicateKeyError, type Models, type UserRole } from '../db/index.ts';
import { assertPasswordPolicy, decoyHash, hashPassword, verifyPassword } from './passwords.ts';
import type { UiActor } from './actor.ts';

export const INVALID_CREDENTIALS = 'Invalid email or password';

const OBJECT_ID = /^[a-f0-9]{24}$/i;

/** A failed read of the accounts or sessions: 503 on every transport, the driver's error kept as cause. */
export function databaseUnavailable(error: unknown, what: string): DomainError {
  if (error instanceof DomainError) return error;
  return new DomainError('DEPENDENCY_UNAVAILABLE', `The database is not answering: ${what}`, { cause: error });
}

export interface UserStore {
  create(input: { email: string; password: string; role: UserRole }): Promise<UiActor>;
  /** The user's actor when the password matches; the same error otherwise, whether the user exists or not. */
  verifyCredentials(email: string, password: string): Promise<UiActor>;
  findActor(userId: string): Promise<UiActor | null>;
  count(): Promise<number>;
}

export function createUserStore(models: Models): UserStore {
  const { User } = models;
  const toActor = (user: { _id: unknown; email: string; role: UserRole }): UiActor => ({
    type: 'ui',
    id: String(user._id),
    email: user.email,
    role: user.role,
  });

  return {
    async create({ email, password, role }) {
      assertPasswordPolicy(password);
      try {
        const user = await User.create({ email, passwordHash: await hashPassword(password), role });
        return toActor(user);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new DomainError('CONFLICT', `A user with email ${email.toLowerCase()} already exists`);
        throw error;
      }
    },

    async verifyCredentials(email, password) {
      const user = await User.findOne({ email: email.trim().toLowerCase() })
        .lean()
        .catch((error: unknown) => {
          throw databaseUnavailable(error, 'the account could not be looked up');
        });
      // Unknown users still pay for one scrypt so response time does not reveal who exists.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
      if (!user || !ok) throw new DomainError('UNAUTHENTICATED', INVALID_CREDENTIALS);
      return toActor(user);
    },

    async findActor(userId) {
      // Only an id that cannot name a user is "nobody"; a database that does not answer is an
      // outage, never a signed-out visitor.
      if (!OBJECT_ID.test(userId)) return null;
      const user = await User.findById(userId)
        .lean()
        .catch((error: unknown) => {
          throw databaseUnavailable(error, 'the signed-in user could not be looked up');
        });
      return user ? toActor(user) : null;
    },

    count: () => User.countDocuments(),
  };
}
