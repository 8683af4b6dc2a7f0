import { DomainError } from '../errors/index.ts';
import { isDuplicateKeyError, type Models, type UserRole } from '../db/index.ts';
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.ts';
import type { UiActor } from './actor.ts';

export const INVALID_CREDENTIALS = 'Invalid email or password';

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
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw new DomainError('VALIDATION_FAILED', `Password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
          details: [{ path: 'password', reason: `at least ${MIN_PASSWORD_LENGTH} characters` }],
        });
      }
      try {
        const user = await User.create({ email, passwordHash: await hashPassword(password), role });
        return toActor(user);
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new DomainError('CONFLICT', `A user with email ${email.toLowerCase()} already exists`);
        throw error;
      }
    },

    async verifyCredentials(email, password) {
      const user = await User.findOne({ email: email.trim().toLowerCase() }).lean();
      // Unknown users still pay for one scrypt so response time does not reveal who exists.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
      if (!user || !ok) throw new DomainError('UNAUTHENTICATED', INVALID_CREDENTIALS);
      return toActor(user);
    },

    async findActor(userId) {
      const user = await User.findById(userId).lean().catch(() => null);
      return user ? toActor(user) : null;
    },

    count: () => User.countDocuments(),
  };
}
