import { z } from 'zod';
import { optionalText } from './fields.ts';
import { extensionId } from './agents.ts';

/**
 * The Marketplace page's forms: search, install from the public registry, promote to public.
 * The extensions tRPC router imports the same field schemas.
 */

/** Search text for the marketplace and the registry listing. */
export const searchText = optionalText('a search', 200);

/** A scoped npm package name (npm allows at most 214 characters). */
export const packageName = z
  .string({ error: 'Choose a package.' })
  .trim()
  .max(214, 'Use at most 214 characters (an npm package name).')
  .regex(/^@[a-z0-9](?:[a-z0-9._]|-)*\/[a-z0-9](?:[a-z0-9._]|-)*$/, 'Use a scoped package name: @scope/name.');

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
