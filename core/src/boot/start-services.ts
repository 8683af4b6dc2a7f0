import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ConfigError, loadConfig, parseEnv, type Env, type ServiceConfig } from '../config/index.ts';
import type { EmbeddedDatabase, EmbeddedRegistry } from '@service/embedded';
import { connectDatabase, type Database } from '../db/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';
import { createLogger, type Logger } from '../log/index.ts';
import { createOutboundHttp } from '../http/index.ts';
import { otlpTarget, startTracing, type ExportFetch, type Tracing } from '../trace-export/index.ts';
import { startMetrics, type Metrics } from '../metrics-export/index.ts';
import { observeHealth } from '../telemetry/index.ts';

import { migrateRunsToLayout2 } from '../migrations/index.ts';
import { createServices, SERVICE_VERSION, type Services } from '../index.ts';
import { supervise, type Supervised } from '../process/index.ts';
import { loadEmbeddedExtras } from './embedded-extras.ts';
import { claimDataDir, dataDirOwner, readDataDirLock, stopOrphanedDatabase, type DataDirClaim } from './data-dir-lock.ts';
import { ensureInitialAdmin, type InitialSignIn } from './initial-admin.ts';
import { agreeWithInstance, recordInstanceIdentity } from './instance-identity.ts';

export interface StartedServices {
  services: Services;
  /** Set when this start created the first admin with a generated password; print it once. */
  initialSignIn: InitialSignIn | undefined;
  stop(): Promise<void>;
}

/**
 * Everything a process needs before it serves: config, database (embedded when MONGODB_URI is
 * unset), indexes, the first admin. The embedded server's child process is stopped by `stop()`.
 */
export async function startServices(
  env: Env,
  options: {
    logger?: Logger;
    configure?: (config: ServiceConfig) => ServiceConfig;
    /**
     * `service` (the web process, the default) serves the data directory's embedded database and
     * records the instance's base URL and key; `mcp-server` joins a running service's database and
     * must agree with what it recorded; `tool` (admin:create) joins one when it runs, else starts its own.
     */
    role?: 'service' | 'mcp-server' | 'tool';
    /** false for tools that must not create the first admin */
    createAdmin?: boolean;
    /** false for tools that must not start the embedded registry (it starts only on the embedded default, while no registries are configured) */
    embeddedRegistry?: boolean;
  } = {},
): Promise<StartedServices> {
  const role = options.role ?? 'service';
  if (role === 'mcp-server') refuseWithoutAService(env);
  // The embedded default's servers come from an optional package: without it, stop before anything
  // is written to the data directory (production without MONGODB_URI is refused by loadConfig).
  const raw = role === 'mcp-server' ? undefined : parseEnv(env);
  const extras = raw && !raw.MONGODB_URI && raw.NODE_ENV !== 'production' ? await loadEmbeddedExtras() : undefined;
  const bootLogger = options.logger ?? createLogger({ level: (env.SERVICE_LOG_LEVEL as 'info' | undefined) ?? 'info' });
  let config = loadConfig(env, bootLogger, { generateSecrets: role !== 'mcp-server' });
  if (options.configure) config = options.configure(config);
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const { tracing, metrics } = startTelemetryExport(env, role, config, logger);

  let embedded: Supervised<EmbeddedDatabase> | undefined;
  let claim: DataDirClaim | undefined;
  /** The service's connection, once made (a restarted embedded database on another port moves it). */
  let connected: Database | undefined;
  /** Set when this process uses the embedded database of the service holding this data directory. */
  let joinedDataDir: string | undefined;
  let uri = config.mongodbUri;
  if (!uri) {
    // One database server per data directory: whoever serves it records where, the others connect there.
    const joined = role === 'service' ? null : await runningServiceDatabase(config.dataDir, logger);
    if (joined) {
      uri = joined;
      joinedDataDir = config.dataDir;
    }
    else if (role === 'mcp-server') throw noServiceRunning(config.dataDir);
    else {
      const { startEmbeddedDatabase } = extras ?? (await loadEmbeddedExtras());
      await stopOrphanedDatabase(config.dataDir, logger);
      // The port the last database of this directory used, so processes that joined it find it again.
      const lastPort = portOf(readDataDirLock(config.dataDir)?.databaseUri);
      const held = (claim = claimDataDir(config.dataDir));
      const dbDir = path.join(config.dataDir, 'db');
      try {
        embedded = supervise(await startEmbeddedDatabase({ dataDir: dbDir, logger, ...(lastPort ? { port: lastPort } : {}) }), {
          what: 'the embedded database',
          // Its own port again, so every connection finds it where it was.
          start: (previous) => startEmbeddedDatabase({ dataDir: dbDir, logger, port: portOf(previous.uri)! }),
          logger,
          // Back on another port (its own was taken meanwhile): the lock and the connection follow.
          restarted: async (next, previous) => {
            held.record(`${next.uri}service`, next.pid);
            if (next.uri !== previous.uri) await connected?.reconnect(`${next.uri}service`);
          },
        });
      } catch (error) {
        claim.release();
        throw error;
      }
      uri = `${embedded.current().uri}service`;
      claim.record(uri, embedded.current().pid);
    }
  }
  const stopEmbeddedOnExit = () => {
    embedded?.stopSync();
    claim?.release();
  };
  process.once('exit', stopEmbeddedOnExit);
  let stopRegistryOnExit: (() => void) | undefined;

  try {
    const database = (connected = await connectDatabase(uri));
    // A process that joined the service's embedded database follows it when it moves (the service restarted).
    const following = joinedDataDir ? followDataDirDatabase(joinedDataDir, uri, database, logger) : undefined;
    if (role === 'service') await recordInstanceIdentity(database.models, config);
    if (role === 'mcp-server') {
      const agreed = await agreeWithInstance(database.models, config, env);
      config = agreed.config;
      if (agreed.identity) logger.info(`serving the instance at ${config.baseUrl}`);
    }
    await migrateRunsToLayout2(database, logger);
    const listed = await createExtensionWriter(database.models).backfillListing();
    if (listed) logger.info(`listed ${listed} extension record(s) stored before the marketplace listing existed`);
    const stopObservingHealth = observeHealth({ databaseUp: () => database.available() && !database.storageFailure() });
    const services = createServices({ config, logger, database, ...(embedded ? { databaseServer: { kind: embedded.current().kind, description: embedded.current().description } } : {}) });
    // The switches' first state comes from the environment; from then on the admin page decides.
    if (await services.featureFlags.storeInitial()) logger.info('feature switches stored from the environment (change them under Administration › Overview)', { ...(await services.flags()) });
    // The embedded default publishes to a registry it runs itself until an admin configures real ones.
    let registry: Supervised<EmbeddedRegistry> | undefined;
    if (embedded && options.embeddedRegistry !== false && (await services.registry.settings.embeddedOrUnset())) {
      const { startEmbeddedRegistry } = extras ?? (await loadEmbeddedExtras());
      const startRegistry = () => startEmbeddedRegistry({ dataDir: config.dataDir, sealer: services.sealer, logger });
      const running = (registry = supervise(await startRegistry(), {
        what: 'the embedded registry',
        start: startRegistry,
        logger,
        // A new token each start (and, when its port was taken, a new address): the settings follow.
        restarted: (next) => services.registry.settings.useEmbedded(next),
      }));
      stopRegistryOnExit = () => running.stopSync();
      process.once('exit', stopRegistryOnExit);
      await services.registry.settings.useEmbedded(running.current());
    }
    const initialSignIn = options.createAdmin === false ? undefined : await ensureInitialAdmin(services, { generateWhenEmpty: embedded !== undefined, generatePassword: () => randomBytes(12).toString('base64url') });
    return {
      services,
      initialSignIn,
      async stop() {
        following?.stop();
        await services.audit.flush();
        await tracing?.shutdown();
        stopObservingHealth();
        await metrics?.shutdown();
        await database.close();
        await registry?.stop();
        await embedded?.stop();
        claim?.release();
        process.removeListener('exit', stopEmbeddedOnExit);
        if (stopRegistryOnExit) process.removeListener('exit', stopRegistryOnExit);
      },
    };
  } catch (error) {
    await tracing?.shutdown();
    await metrics?.shutdown();
    await embedded?.stop();
    claim?.release();
    process.removeListener('exit', stopEmbeddedOnExit);
    throw error;
  }
}

const noServiceRunning = (dataDir: string) =>
  new ConfigError([{ variable: 'MONGODB_URI', reason: `is unset and no service is running on ${dataDir}: start the service first (\`pnpm start\`; this server uses its embedded database), or set MONGODB_URI` }]);

/** Before anything is read or generated in the data directory: the MCP server has no database of its own to start. */
function refuseWithoutAService(env: Env): void {
  const raw = parseEnv(env);
  const dataDir = path.resolve(raw.SERVICE_DATA_DIR);
  if (!raw.MONGODB_URI && !dataDirOwner(dataDir)) throw noServiceRunning(dataDir);
}

/** Where the embedded database of the service that holds this data directory answers; waits while it starts. */
async function runningServiceDatabase(dataDir: string, logger: Logger): Promise<string | null> {
  const deadline = Date.now() + 60_000;
  for (let owner = dataDirOwner(dataDir); owner; owner = dataDirOwner(dataDir)) {
    if (owner.databaseUri) {
      logger.info(`using the embedded database of the service (pid ${owner.pid}) on this data directory`, { dataDir });
      return owner.databaseUri;
    }
    if (Date.now() > deadline) throw new Error(`the service (pid ${owner.pid}) on ${dataDir} has not started its database within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return null;
}

const portOf = (uri: string | null | undefined): number | undefined => {
  const port = uri ? Number(new URL(uri).port) : NaN;
  return Number.isInteger(port) && port > 0 ? port : undefined;
};

/**
 * Keeps a process that joined the service's embedded database (the standalone MCP server) on it:
 * when the service restarts, its database may come back elsewhere, and the lock says where.
 */
function followDataDirDatabase(dataDir: string, joinedUri: string, database: Database, logger: Logger): { stop(): void } {
  let current = joinedUri;
  let moving = false;
  const timer = setInterval(() => {
    const uri = dataDirOwner(dataDir)?.databaseUri;
    if (!uri || uri === current || moving) return;
    moving = true;
    logger.info('the service\'s embedded database moved; following it', { from: current, to: uri });
    database
      .reconnect(uri)
      .then(() => (current = uri))
      .catch((error: unknown) => logger.warn('could not reach the service\'s embedded database yet', { uri, error }))
      .finally(() => (moving = false));
  }, 1_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}


/**
 * Traces and metrics to the OTLP collector the standard OTEL_* variables name, and the Prometheus
 * scrape when SERVICE_METRICS_PROMETHEUS is on (each off by default: its API stays a no-op). What
 * is exported goes out through the service's outbound client; the collector is the operator's own
 * configuration, so its address may be private (a sidecar, a cluster service).
 */
function startTelemetryExport(env: Env, role: string, config: ServiceConfig, logger: Logger): { tracing: Tracing | null; metrics: Metrics | null } {
  let http: ReturnType<typeof createOutboundHttp> | undefined;
  const own = { env, serviceName: role === 'mcp-server' ? 'service-mcp' : 'service', version: SERVICE_VERSION, role };
  const send: ExportFetch = (url, call) => (http ??= createOutboundHttp({ allowPrivate: true })).fetch(url, call);
  const tracing = startTracing({ ...own, send, onExportFailure: (message) => logger.warn(message) });
  if (tracing) logger.info('tracing: spans are exported over OTLP/HTTP', { role });
  const metrics = startMetrics({ ...own, prometheus: config.metrics.prometheus, send, onExportFailure: (message) => logger.warn(message) });
  if (metrics) logger.info('metrics: recorded', { role, prometheus: metrics.scrape ? 'GET /metrics' : 'off', otlp: otlpTarget(env, 'metrics') ? 'on' : 'off' });
  return { tracing, metrics };
}
