import { z } from 'zod';
import { slugId } from './fields.ts';

/** A stored record's id (a MongoDB ObjectId: 24 hex digits). */
export function recordId(what: string) {
  return z
    .string({ error: `Choose ${what}.` })
    .trim()
    .regex(/^[a-f0-9]{24}$/, `That is not ${what}.`);
}

/** An extension (an authored agent, an installed package) by its record id. */
export const extensionId = recordId('an extension id');

/** One of the example packages shipped with the service, by its folder name. */
export const exampleName = slugId('the example name');

export const PUBLISH_DESTINATIONS = ['private', 'public'] as const;
export const VERSION_BUMPS = ['patch', 'minor', 'major'] as const;

export const publishDestination = z.enum(PUBLISH_DESTINATIONS, { error: 'Choose private or public.' });
export const versionBump = z.enum(VERSION_BUMPS, { error: 'Choose patch, minor or major.' });
