export { createAuditLog, type AuditLog, type AuditEntry, type AuditRow, type AuditPage, type AuditFilter } from './audit-log.ts';
export { summariseInput, summariseChanges, boundDetails, MAX_AUDIT_SUMMARY_BYTES, MAX_AUDIT_DETAILS_BYTES, type ValueSummary } from './summarise.ts';
