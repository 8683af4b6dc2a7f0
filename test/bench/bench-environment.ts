import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase, type Database } from '@service/core/db';
import { startEmbeddedDatabase } from '@service/embedded';
import { createLogger } from '@service/core/log';

/**
 * The same real MongoDB-wire server the tests use: MONGODB_URI, else (or with `embedded`) the
 * embedded FerretDB in a temp dir. `uri` names the database, for a service process to connect to.
 */
export async function benchDatabase(name: string, options: { embedded?: boolean } = {}): Promise<{ db: Database; kind: string; uri: string; stop(): Promise<void> }> {
  const logger = createLogger({ level: 'warn' });
  if (process.env.MONGODB_URI && !options.embedded) {
    const url = new URL(process.env.MONGODB_URI);
    url.pathname = `/${name}`;
    const db = await connectDatabase(url.toString());
    const kind = (await db.profile()).kind;
    return { db, kind: `MONGODB_URI (${kind})`, uri: url.toString(), stop: async () => { await db.connection.dropDatabase(); await db.close(); } };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-db-'));
  const server = await startEmbeddedDatabase({ dataDir: dir, logger });
  const db = await connectDatabase(`${server.uri}${name}`);
  return {
    db,
    kind: server.kind,
    uri: `${server.uri}${name}`,
    stop: async () => {
      await db.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
