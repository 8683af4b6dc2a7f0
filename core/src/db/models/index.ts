import type { Connection } from 'mongoose';
import { auditEventSchema } from './audit-event.ts';
import { sessionSchema } from './session.ts';
import { userSchema } from './user.ts';
import { extensionSchema } from './extension.ts';
import { registryDeploymentSchema } from './registry-deployment.ts';
import { registryDestinationSchema } from './registry-destination.ts';
import { publishJobSchema } from './publish-job.ts';
import { oauthClientSchema } from './oauth-client.ts';
import { oauthSigningKeySchema } from './oauth-signing-key.ts';
import { oauthAuthorizationCodeSchema, oauthGrantSchema, oauthRefreshTokenSchema, oauthRegisteredClientSchema } from './oauth-consent.ts';
import { runSchema } from './run.ts';
import { runEventSchema } from './run-event.ts';
import { runKeySchema } from './run-key.ts';
import { remotePeerSchema } from './remote-peer.ts';
import { connectorInstanceSchema } from './connector-instance.ts';
import { importJobSchema } from './import-job.ts';
import { extensionImportSchema } from './extension-import.ts';
import { importSyncEventSchema } from './import-sync-event.ts';
import { claimSchema } from './claim.ts';
import { runLeaseSchema } from './run-lease.ts';
import { migrationSchema } from './migration.ts';
import { extensionListingSchema } from './extension-listing.ts';
import { settingSchema } from './setting.ts';
import { widgetEditSchema } from './widget-edit.ts';
import { rateLimitSlotSchema } from './rate-limit-slot.ts';
import { pushConfigSchema } from './push-config.ts';
import { pushDeliverySchema } from './push-delivery.ts';
import { pushCursorSchema } from './push-cursor.ts';
import { usageRowSchema } from './usage-row.ts';
import { mcpServerSchema } from './mcp-server.ts';

/** Binds every model to one connection; each collection's schema lives in its own file. */
export function bindModels(connection: Connection) {
  return {
    User: connection.model('User', userSchema),
    Session: connection.model('Session', sessionSchema),
    AuditEvent: connection.model('AuditEvent', auditEventSchema),
    Extension: connection.model('Extension', extensionSchema),
    RegistryDeployment: connection.model('RegistryDeployment', registryDeploymentSchema),
    RegistryDestination: connection.model('RegistryDestination', registryDestinationSchema),
    PublishJob: connection.model('PublishJob', publishJobSchema),
    OauthClient: connection.model('OauthClient', oauthClientSchema),
    OauthSigningKey: connection.model('OauthSigningKey', oauthSigningKeySchema),
    OauthRegisteredClient: connection.model('OauthRegisteredClient', oauthRegisteredClientSchema),
    OauthGrant: connection.model('OauthGrant', oauthGrantSchema),
    OauthAuthorizationCode: connection.model('OauthAuthorizationCode', oauthAuthorizationCodeSchema),
    OauthRefreshToken: connection.model('OauthRefreshToken', oauthRefreshTokenSchema),
    Run: connection.model('Run', runSchema),
    RunEvent: connection.model('RunEvent', runEventSchema),
    RunKey: connection.model('RunKey', runKeySchema),
    RemotePeer: connection.model('RemotePeer', remotePeerSchema),
    ConnectorInstance: connection.model('ConnectorInstance', connectorInstanceSchema),
    ImportJob: connection.model('ImportJob', importJobSchema),
    ExtensionImport: connection.model('ExtensionImport', extensionImportSchema),
    ImportSyncEvent: connection.model('ImportSyncEvent', importSyncEventSchema),
    Claim: connection.model('Claim', claimSchema),
    RunLease: connection.model('RunLease', runLeaseSchema),
    Migration: connection.model('Migration', migrationSchema),
    ExtensionListing: connection.model('ExtensionListing', extensionListingSchema),
    Setting: connection.model('Setting', settingSchema),
    WidgetEdit: connection.model('WidgetEdit', widgetEditSchema),
    RateLimitSlot: connection.model('RateLimitSlot', rateLimitSlotSchema),
    PushConfig: connection.model('PushConfig', pushConfigSchema),
    PushDelivery: connection.model('PushDelivery', pushDeliverySchema),
    PushCursor: connection.model('PushCursor', pushCursorSchema),
    UsageRow: connection.model('UsageRow', usageRowSchema),
    McpServer: connection.model('McpServer', mcpServerSchema),
  };
}

export type Models = ReturnType<typeof bindModels>;
export { USER_ROLES, type UserRole, type UserRecord } from './user.ts';
export type { SessionRecord } from './session.ts';
export type { AuditEventRecord } from './audit-event.ts';
export type { ExtensionRecord } from './extension.ts';
export type { RegistryDeploymentRecord } from './registry-deployment.ts';
export type { RegistryDestinationRecord } from './registry-destination.ts';
export type { PublishJobRecord } from './publish-job.ts';
export type { ImportJobRecord } from './import-job.ts';
export type { ExtensionImportRecord } from './extension-import.ts';
export type { ImportSyncEventRecord } from './import-sync-event.ts';
export { A2A_PERMISSIONS, type A2aPermission, type OauthClientRecord } from './oauth-client.ts';
export type { OauthGrantRecord, OauthRegisteredClientRecord } from './oauth-consent.ts';
export type { RunRecord } from './run.ts';
export { runEventId, runEventsAfter, type RunEventRecord } from './run-event.ts';
export type { RunLeaseRecord } from './run-lease.ts';
export { RUN_KEY_TTL_MS, type RunKeyRecord } from './run-key.ts';
export type { WidgetEditRecord } from './widget-edit.ts';
export type { PushConfigRecord } from './push-config.ts';
export type { PushDeliveryRecord } from './push-delivery.ts';
export type { PushCursorRecord } from './push-cursor.ts';
export type { McpServerRecord } from './mcp-server.ts';
