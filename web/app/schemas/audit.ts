import { z } from 'zod';

/**
 * The audit log's filters: a GET form (an address one can bookmark), so no Conform form, but the
 * same limits on the inputs (`maxLength`) as `audit.list` takes.
 */
export const auditActorFilter = z.string().trim().max(320, 'Use at most 320 characters (an email or client id).');
export const auditActionFilter = z.string().trim().max(100, 'Use at most 100 characters (an action or its prefix).');
/** The cursor `audit.list` answered as `nextCursor`. */
export const auditCursor = z.string().max(200);
