import { z } from 'zod';
import { tooLong } from './fields.ts';

/**
 * The audit log's filters: a GET form (an address one can bookmark), so no Conform form, but the
 * same limits on the inputs (`maxLength`) as `audit.list` takes.
 */
export const auditActorFilter = z.string().trim().max(320, tooLong('an email or client id', 320));
export const auditActionFilter = z.string().trim().max(100, tooLong('an action or its prefix', 100));
/** The cursor `audit.list` answered as `nextCursor`. */
export const auditCursor = z.string().max(200);
