import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EmbeddedDatabase } from './types.ts';

/**
 * Last resort when neither FerretDB nor Go is available: a real mongod managed by
 * mongodb-memory-server, with a persistent dbPath so a second start reuses the data.
 * It downloads a mongod build on first use, which needs access to MongoDB's download host.
 */
export async function startMemoryServer(dataDir: string): Promise<EmbeddedDatabase> {
  const dbPath = path.join(dataDir, 'mongod');
  mkdirSync(dbPath, { recursive: true });
  const { MongoMemoryServer } = await import('mongodb-memory-server-core');
  const server = await MongoMemoryServer.create({
    instance: { dbPath, storageEngine: 'wiredTiger', ip: '127.0.0.1' },
  });
  return {
    uri: server.getUri().replace(/\/[^/]*$/, '/'),
    kind: 'mongodb-memory-server',
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
    stopSync: () => {
      server.instanceInfo?.instance.mongodProcess?.kill('SIGTERM');
    },
  };
}
