import { z } from 'zod';
import { currentPassword, newPassword, userEmail, userId, userRole } from '../schemas/users.ts';

/** Create a user on the users page; an empty password means "generate one and show it once". */
export const createUserForm = z.object({
  intent: z.literal('create'),
  email: userEmail,
  role: userRole.default('member'),
  password: newPassword.optional(),
});

/** A row's buttons on the users page. */
export const userActionForm = z.object({
  intent: z.enum(['make-admin', 'make-member', 'remove']),
  userId,
});

/** The account page's password change. */
export const changePasswordForm = z
  .object({
    intent: z.literal('password'),
    currentPassword,
    newPassword,
    repeatPassword: z.string({ error: 'Repeat the new password.' }).max(1024),
  })
  .refine((value) => value.newPassword === value.repeatPassword, { path: ['repeatPassword'], message: 'The two new passwords differ.' });

export const signOutOthersForm = z.object({ intent: z.literal('sign-out-others') });

/** Never echoed back into a refused form. */
export const PASSWORD_FIELDS = ['password', 'currentPassword', 'newPassword', 'repeatPassword'] as const;
