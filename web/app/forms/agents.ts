import { z } from 'zod';
import { exampleName, extensionId, publishDestination, versionBump } from '../schemas/agents.ts';
import { checkbox } from '../schemas/fields.ts';

/** The Agents pages' forms: start from an example, review, publish. */

export const exampleForm = z.object({
  intent: z.literal('example'),
  example: exampleName,
  /** Set by the confirm that follows a refusal to replace a published agent. */
  overwrite: checkbox,
});

export const reviewForm = z.object({
  intent: z.literal('review'),
  id: extensionId,
});

export const publishForm = z.object({
  destination: publishDestination,
  bump: versionBump,
});
