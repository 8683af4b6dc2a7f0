import path from 'node:path';
import type { Logger } from '../../log/index.ts';
import { ensureFerretdb } from './ferretdb-binary.ts';
import { startFerretdb } from './ferretdb-process.ts';
import { startMemoryServer } from './memory-server.ts';
import type { EmbeddedDatabase } from './types.ts';

export interface EmbeddedOptions {
  /** Where the server keeps its files; the service uses `<SERVICE_DATA_DIR>/db`. */
  dataDir: string;
  logger: Logger;
  /** Whether to fall back to mongodb-memory-server when neither FerretDB nor Go is present. */
  allowMemoryServer?: boolean;
}

/**
 * Starts a local MongoDB-compatible server: a FerretDB binary if one is installed, else FerretDB
 * built once through Go, else mongodb-memory-server. Data persists in `dataDir` across starts.
 */
export async function startEmbeddedDatabase(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const binary = await ensureFerretdb(options.logger);
  if (binary) {
    const db = await startFerretdb(binary, dataDir, options.logger);
    options.logger.info(`embedded database: FerretDB (SQLite) on ${db.uri} with data in ${dataDir}`);
    return db;
  }
  if (options.allowMemoryServer === false) {
    throw new Error('no MongoDB-compatible server available: set MONGODB_URI, install FerretDB, or install Go so it can be built');
  }
  options.logger.warn('no ferretdb and no go found: falling back to mongodb-memory-server (downloads mongod on first use)');
  const db = await startMemoryServer(dataDir);
  options.logger.info(`embedded database: mongod via mongodb-memory-server on ${db.uri} with data in ${dataDir}`);
  return db;
}
