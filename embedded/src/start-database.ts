import { existsSync } from 'node:fs';
import path from 'node:path';
import type { EmbeddedLogger } from './host.ts';
import { ensureFerretdb } from './ferretdb-binary.ts';
import { startFerretdb } from './ferretdb-process.ts';
import { MongodUnavailable, startMongod } from './memory-server.ts';
import type { EmbeddedDatabase } from './database-types.ts';

export interface EmbeddedOptions {
  /** Where the server keeps its files; the service uses `<SERVICE_DATA_DIR>/db`. */
  dataDir: string;
  logger: EmbeddedLogger;
  /** Whether to try a real mongod (cached or downloaded) before FerretDB; default true. */
  allowMongod?: boolean;
  /** The port to listen on when it is free (a restart keeps its port); default a free one. */
  port?: number;
}

/**
 * Starts a local MongoDB-wire server, data persisting in `dataDir` across starts: a real mongod
 * (mongodb-memory-server's cache, or a download that must answer within seconds), else FerretDB
 * (installed, or built once through Go) as the offline fallback. The log says which and why.
 */
export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  let mongodSkipped = 'not tried';
  // A data directory FerretDB already holds stays FerretDB's: a mongod started on it later would
  // start empty beside it (and every warm start would probe the download host again).
  if (existsSync(path.join(dataDir, 'sqlite')) && !existsSync(path.join(dataDir, 'mongod'))) mongodSkipped = 'this data directory is FerretDB\'s';
  else if (options.allowMongod !== false) {
    try {
      const db = await startMongod(dataDir, options.logger, options.port ? { port: options.port } : {});
      options.logger.info(`embedded database: ${db.description} on ${db.uri} with data in ${dataDir}`);
      return db;
    } catch (error) {
      if (!(error instanceof MongodUnavailable)) throw error;
      mongodSkipped = error.message;
      // Said now: a first start builds FerretDB next, which takes minutes.
      options.logger.info(`mongod not used (${mongodSkipped}): using FerretDB instead`);
    }
  }
  const binary = await ensureFerretdb(options.logger);
  if (!binary) {
    throw new Error(`no MongoDB-compatible server available: set MONGODB_URI, or install Go so FerretDB can be built (mongod: ${mongodSkipped})`);
  }
  const db = await startFerretdb(binary, dataDir, options.logger, options.port ? { port: options.port } : {});
  options.logger.info(`embedded database: ${db.description} on ${db.uri} with data in ${dataDir} (mongod: ${mongodSkipped}); for many runs or extensions set MONGODB_URI, see docs/operations.md "When to set MONGODB_URI"`);
  return db;
}
