import type { Connection } from 'mongoose';
import { auditEventSchema } from './audit-event.ts';
import { sessionSchema } from './session.ts';
import { userSchema } from './user.ts';

/** Binds every model to one connection; each collection's schema lives in its own file. */
export function bindModels(connection: Connection) {
  return {
    User: connection.model('User', userSchema),
    Session: connection.model('Session', sessionSchema),
    AuditEvent: connection.model('AuditEvent', auditEventSchema),
  };
}

export type Models = ReturnType<typeof bindModels>;
export { USER_ROLES, type UserRole, type UserRecord } from './user.ts';
export type { SessionRecord } from './session.ts';
export type { AuditEventRecord } from './audit-event.ts';
