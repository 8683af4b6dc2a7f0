export { createAuditLog, type AuditLog, type AuditEntry, type AuditRow, type AuditPage } from './audit-log.ts';
