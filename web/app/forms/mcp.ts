import { z } from 'zod';
import { requiredText } from '../schemas/fields.ts';

/** Revoke one connected MCP app (its grant). */
export const revokeConnectionForm = z.object({
  intent: z.literal('revoke'),
  grantId: requiredText('the connection', 100),
});
