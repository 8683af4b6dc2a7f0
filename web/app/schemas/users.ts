import { z } from 'zod';
import { tooLong } from './fields.ts';

/**
 * The fields of the users and account pages, shared by their forms and tRPC procedures.
 * Client-safe, so the password policy's length is repeated here: core's MIN_PASSWORD_LENGTH
 * (auth/passwords.ts) is the rule, checked again on the server; users.test.ts keeps the two equal.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const USER_ROLE_NAMES = ['admin', 'member'] as const;

export const userEmail = z
  .string({ error: 'Enter an email address.' })
  .trim()
  .min(1, 'Enter an email address.')
  .max(320, tooLong('an email address', 320))
  .regex(/^[^\s@]+@[^\s@]+$/, 'Enter an email address like name@example.com.');

export const userRole = z.enum(USER_ROLE_NAMES, { error: 'Choose admin or member.' });

/** A new password, taken as typed (never trimmed). */
export const newPassword = z
  .string({ error: `Enter a password of at least ${PASSWORD_MIN_LENGTH} characters.` })
  .min(PASSWORD_MIN_LENGTH, `Use at least ${PASSWORD_MIN_LENGTH} characters.`)
  .max(1024, tooLong('a password', 1024));

/** The password one already has: any length the sign-in form takes. */
export const currentPassword = z.string({ error: 'Enter your current password.' }).min(1, 'Enter your current password.').max(1024, tooLong('a password', 1024));

export const userId = z.string().regex(/^[a-f0-9]{24}$/, 'Not a user id.');
