import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadConfig, type Env, type ServiceConfig } from '../config/index.ts';
import { connectDatabase, startEmbeddedDatabase, type EmbeddedDatabase } from '../db/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';
import { createLogger, type Logger } from '../log/index.ts';
import { moveRunsIntoOneCollection } from '../runs/index.ts';
import { createServices, type Services } from '../services.ts';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../registry/embedded/embedded-registry.ts';
import { ensureInitialAdmin, type InitialSignIn } from './initial-admin.ts';

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
    /** false for tools that must not create the first admin */
    createAdmin?: boolean;
    /** false for tools that must not start the embedded registry (it starts only on the embedded default, while no registries are configured) */
    embeddedRegistry?: boolean;
  } = {},
): Promise<StartedServices> {
  const bootLogger = options.logger ?? createLogger({ level: (env.SERVICE_LOG_LEVEL as 'info' | undefined) ?? 'info' });
  let config = loadConfig(env, bootLogger);
  if (options.configure) config = options.configure(config);
  const logger = options.logger ?? createLogger({ level: config.logLevel });

  let embedded: EmbeddedDatabase | undefined;
  let uri = config.mongodbUri;
  if (!uri) {
    embedded = await startEmbeddedDatabase({ dataDir: path.join(config.dataDir, 'db'), logger });
    uri = `${embedded.uri}service`;
  }
  const stopEmbeddedOnExit = () => embedded?.stopSync();
  process.once('exit', stopEmbeddedOnExit);
  let stopRegistryOnExit: (() => void) | undefined;

  try {
    const database = await connectDatabase(uri);
    await moveRunsIntoOneCollection(database.models, logger);
    const listed = await createExtensionWriter(database.models).backfillListing();
    if (listed) logger.info(`listed ${listed} extension record(s) stored before the marketplace listing existed`);
    const services = createServices({ config, logger, database, ...(embedded ? { databaseServer: { kind: embedded.kind, description: embedded.description } } : {}) });
    // The switches' first state comes from the environment; from then on the admin page decides.
    if (await services.featureFlags.storeInitial()) logger.info('feature switches stored from the environment (change them under Administration › Overview)', { ...(await services.flags()) });
    // The embedded default publishes to a registry it runs itself until an admin configures real ones.
    let registry: EmbeddedRegistry | undefined;
    if (embedded && options.embeddedRegistry !== false && (await services.registry.settings.embeddedOrUnset())) {
      registry = await startEmbeddedRegistry({ dataDir: config.dataDir, sealer: services.sealer, logger });
      stopRegistryOnExit = () => registry?.stopSync();
      process.once('exit', stopRegistryOnExit);
      await services.registry.settings.useEmbedded(registry);
    }
    const initialSignIn = options.createAdmin === false ? undefined : await ensureInitialAdmin(services, { generateWhenEmpty: embedded !== undefined, generatePassword: () => randomBytes(12).toString('base64url') });
    return {
      services,
      initialSignIn,
      async stop() {
        await services.audit.flush();
        await database.close();
        await registry?.stop();
        await embedded?.stop();
        process.removeListener('exit', stopEmbeddedOnExit);
        if (stopRegistryOnExit) process.removeListener('exit', stopRegistryOnExit);
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
