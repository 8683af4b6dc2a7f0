import { z } from 'zod';
import { requiredText, tooLong } from '../schemas/fields.ts';

/**
 * The sign-in form. The password is taken as typed (never trimmed); where to go afterwards is a
 * hidden field that `safeRedirect` checks again, anything unusable falling back to Administration.
 */
export const signInForm = z.object({
  email: requiredText('your email', 320),
  password: z.string({ error: 'Enter your password.' }).min(1, 'Enter your password.').max(1024, tooLong('a password', 1024)),
  redirectTo: z.string().max(2048).optional().catch(undefined),
});
