export { createDatabase, connectDatabase, type Database, type ConnectOptions } from './connect.ts';
export { startEmbeddedDatabase, ensureFerretdb, FERRETDB_VERSION, type EmbeddedDatabase } from './embedded/index.ts';
export { USER_ROLES, type Models, type UserRole, type UserRecord, type SessionRecord, type AuditEventRecord } from './models/index.ts';
export { isDuplicateKeyError } from './errors.ts';
export { detectServerKind, type ServerKind } from './server-kind.ts';
export { A2A_PERMISSIONS, type A2aPermission, TASK_STATES, TERMINAL_STATES, type TaskState, type RunRecord, runEventId, runEventsAfter, runHeads, runLeaseId, runIdOfLease, runLeaseRange, runIdempotencyId, runEndId, RUN_HEADS_END, runListPrefix, runListId, parseRunListId, runOwnerDigest } from './models/index.ts';
export { createClaims, type Claims } from './claims.ts';
