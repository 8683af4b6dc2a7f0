import { z } from 'zod';
import { extensionId } from '../schemas/agents.ts';
import { packageName, searchText } from '../schemas/marketplace.ts';

/**
 * The Marketplace page's forms: search, install from the public registry, promote to public.
 * Built from the field schemas the extensions procedures take (schemas/).
 */

/** The search box (a GET form: the loader parses the query string with it). */
export const searchForm = z.object({
  q: searchText,
});

export const installForm = z.object({
  intent: z.literal('install'),
  packageName,
});

export const promoteForm = z.object({
  intent: z.literal('promote'),
  id: extensionId,
});
