import { createAuditLog, type AuditLog } from './audit/index.ts';
import { createSessionStore, createUserStore, type SessionStore, type UserStore } from './auth/index.ts';
import { readFeatureFlags, type FeatureFlags, type ServiceConfig } from './config/index.ts';
import { createSealer, type Sealer } from './crypto/index.ts';
import type { Database } from './db/index.ts';
import { createHealthzHandler } from './health/index.ts';
import { createExtensionReader, createExtensionWriter, type ExtensionReader } from './extensions/index.ts';
import { createRegistryService, type NpmRunner, type RegistryService } from './registry/index.ts';
import { createOauthProvider, type OauthProvider } from './auth/oauth/index.ts';
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
  oauth: OauthProvider;
  /** Read at call time so flags can change without a restart. */
  flags(): FeatureFlags;
  version: string;
  handlers: {
    healthz: (request: Request) => Promise<Response>;
    oauthToken: (request: Request) => Promise<Response>;
    jwks: (request: Request) => Promise<Response>;
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
  const oauth = createOauthProvider({ models: database.models, sealer, audit, logger: logger.child({ component: 'oauth' }), canonicalOrigin: () => config.baseUrl });
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
    oauth,
    flags: () => readFeatureFlags(),
    version: SERVICE_VERSION,
    handlers: {
      healthz: createHealthzHandler({ database, version: SERVICE_VERSION }),
      oauthToken: oauth.handlers.token,
      jwks: oauth.handlers.jwks,
    },
  };
}
