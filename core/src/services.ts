import { createAuditLog, type AuditLog } from './audit/index.ts';
import { createSessionStore, createUserStore, type SessionStore, type UserStore } from './auth/index.ts';
import { readFeatureFlags, type FeatureFlags, type ServiceConfig } from './config/index.ts';
import { createSealer, type Sealer } from './crypto/index.ts';
import type { Database } from './db/index.ts';
import { createHealthzHandler } from './health/index.ts';
import { createExtensionReader, createExtensionWriter, type ExtensionReader } from './extensions/index.ts';
import { createRegistryService, type NpmRunner, type RegistryService } from './registry/index.ts';
import type { Logger } from './log/index.ts';
import { SERVICE_VERSION } from './version.ts';

export interface Services {
  config: ServiceConfig;
  logger: Logger;
  database: Database;
  sealer: Sealer;
  users: UserStore;
  sessions: SessionStore;
  audit: AuditLog;
  /** Every read of extension records goes through this (the visibility filter). */
  extensions: ExtensionReader;
  registry: RegistryService;
  /** Read at call time so flags can change without a restart. */
  flags(): FeatureFlags;
  version: string;
  handlers: {
    healthz: (request: Request) => Promise<Response>;
  };
}

/** Wires every capability once. The web app and (later) the MCP server both call this. */
export function createServices(deps: { config: ServiceConfig; logger: Logger; database: Database; npm?: NpmRunner }): Services {
  const { config, logger, database } = deps;
  const users = createUserStore(database.models);
  const sealer = createSealer(config.masterKeys);
  const audit = createAuditLog(database.models, logger.child({ component: 'audit' }));
  const extensions = createExtensionReader(database.models, config.identity);
  const registry = createRegistryService({
    models: database.models,
    sealer,
    identity: config.identity,
    reader: extensions,
    writer: createExtensionWriter(database.models),
    audit,
    logger: logger.child({ component: 'registry' }),
    ...(deps.npm ? { npm: deps.npm } : {}),
  });
  return {
    config,
    logger,
    database,
    sealer,
    users,
    sessions: createSessionStore(database.models, users),
    audit,
    extensions,
    registry,
    flags: () => readFeatureFlags(),
    version: SERVICE_VERSION,
    handlers: {
      healthz: createHealthzHandler({ database, version: SERVICE_VERSION }),
    },
  };
}
