export { createDatabase, connectDatabase, type Database, type ConnectOptions } from './connect.ts';
export type { StorageFailure } from './storage-state.ts';
export { USER_ROLES, type Models, type UserRole, type UserRecord, type SessionRecord, type AuditEventRecord } from './models/index.ts';
export { isDuplicateKeyError } from './errors.ts';
export { detectServerKind, type ServerKind } from './server-kind.ts';
export { readServerProfile, type ServerProfile } from './server-profile.ts';
export { A2A_PERMISSIONS, type A2aPermission, type RunRecord, runEventId, runEventsAfter, type RunEventRecord, type RunLeaseRecord, RUN_KEY_TTL_MS, type RunKeyRecord } from './models/index.ts';
export { createClaims, type Claims } from './claims.ts';
export { readPage } from './read-page.ts';
