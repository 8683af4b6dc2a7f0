import { z } from 'zod';
import { tooLong } from '../schemas/fields.ts';
import { credential, instanceId, instanceName, siteUrl, username, webhookSecret } from '../schemas/connectors.ts';

/** The fields a refused save must not send back to the browser (Conform echoes a refused form's values). */
export const SECRET_FIELDS = ['credential', 'webhookSecret'] as const;

/** Add or change an instance of a connector whose client signs in with a key alone (CMS-A). */
export const saveInstanceForm = z.object({
  intent: z.literal('save'),
  id: instanceId,
  name: instanceName,
  siteUrl,
  username: z.string().trim().max(200, tooLong('the username', 200)).optional(),
  credential,
  webhookSecret,
});

/** The same for a connector that signs in as a user (CMS-B, an application password). */
export const saveInstanceWithUsernameForm = saveInstanceForm.extend({ username });

/** "Test connection" on one instance. */
export const testInstanceForm = z.object({
  intent: z.literal('test'),
  id: instanceId,
});

/** "Remove" on one instance (after a confirm). */
export const removeInstanceForm = z.object({
  intent: z.literal('remove'),
  id: instanceId,
});
