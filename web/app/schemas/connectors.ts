import { z } from 'zod';
import { httpUrl, requiredText, slugId, tooLong } from './fields.ts';

/**
 * A connector instance's id: core's `instanceId` (`/^[a-z0-9][a-z0-9-]{0,62}$/`), refused in
 * plain words. Shared by the connector and assistant forms and their tRPC procedures.
 */
export const instanceId = slugId('the instance id');

export const instanceName = requiredText('a name', 100);

/** The CMS site: http(s), at most 500 characters (core refuses credentials in it). */
export const siteUrl = httpUrl('the site URL');

export const username = requiredText('the username', 200);

/** Write-only secrets: empty keeps the stored one. */
export const credential = z.string().trim().max(1_000, tooLong('the credential', 1000)).optional();
export const webhookSecret = z.string().trim().max(500, tooLong('the webhook secret', 500)).optional();
