import { z } from 'zod';
import { optionalText, tooLong } from './fields.ts';

/** Search text for the marketplace and the registry listing. */
export const searchText = optionalText('a search', 200);

/** A scoped npm package name (npm allows at most 214 characters). */
export const packageName = z
  .string({ error: 'Choose a package.' })
  .trim()
  .max(214, tooLong('an npm package name', 214))
  .regex(/^@[a-z0-9](?:[a-z0-9._]|-)*\/[a-z0-9](?:[a-z0-9._]|-)*$/, 'Use a scoped package name: @scope/name.');
