import type { Actor } from './actor.ts';

/**
 * What auth writes to the audit log (failed sign-ins, OAuth client changes). It is named here,
 * not imported from audit, because audit depends on auth (actors and their names) and not the
 * reverse; audit's AuditLog extends it, and createServices hands the audit log in.
 */
export interface AuditTrail {
  record(actor: Actor, entry: { action: string; resourceType: string; resourceId?: string; details?: Record<string, unknown> }): void;
}
