import { createAuditLog, type AuditLog } from './audit/index.ts';
import { createSessionStore, createUserStore, type SessionStore, type UserStore } from './auth/index.ts';
import { readFeatureFlags, type FeatureFlags, type ServiceConfig } from './config/index.ts';
import { createSealer, type Sealer } from './crypto/index.ts';
import type { Database } from './db/index.ts';
import { createHealthzHandler } from './health/index.ts';
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
  /** Read at call time so flags can change without a restart. */
  flags(): FeatureFlags;
  version: string;
  handlers: {
    healthz: (request: Request) => Promise<Response>;
  };
}

/** Wires every capability once. The web app and (later) the MCP server both call this. */
export function createServices(deps: { config: ServiceConfig; logger: Logger; database: Database }): Services {
  const { config, logger, database } = deps;
  const users = createUserStore(database.models);
  return {
    config,
    logger,
    database,
    sealer: createSealer(config.masterKeys),
    users,
    sessions: createSessionStore(database.models, users),
    audit: createAuditLog(database.models, logger.child({ component: 'audit' })),
    flags: () => readFeatureFlags(),
    version: SERVICE_VERSION,
    handlers: {
      healthz: createHealthzHandler({ database, version: SERVICE_VERSION }),
    },
  };
}
