import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { EmbeddedLogger } from './host.ts';
import type { EmbeddedDatabase } from './database-types.ts';

/** How long the download host may take to answer before the start moves on to FerretDB. */
const DOWNLOAD_PROBE_MS = 3_000;

/** Why a real mongod could not be had here; the caller falls back and says so. */
export class MongodUnavailable extends Error {}

/**
 * A real mongod, managed by mongodb-memory-server, with a persistent dbPath so a second start
 * reuses the data: the binary from its cache, or downloaded once from MongoDB's download host.
 * An unreachable host fails within seconds (DNS or connect refused at once, silence after
 * DOWNLOAD_PROBE_MS) with `MongodUnavailable`, instead of the downloader's minute-long retries.
 */
export async function startMongod(dataDir: string, logger: EmbeddedLogger, options: { probeMs?: number; port?: number } = {}): Promise<EmbeddedDatabase> {
  const { DryMongoBinary, MongoMemoryServer } = await import('mongodb-memory-server-core');
  const binary = await DryMongoBinary.generateOptions({});
  if (!(await DryMongoBinary.locateBinary(binary))) {
    const url = await downloadUrl(binary);
    const host = new URL(url).host;
    try {
      const response = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(options.probeMs ?? DOWNLOAD_PROBE_MS) });
      await response.body?.cancel();
      if (response.status >= 400) throw new Error(`HTTP ${response.status}`);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new MongodUnavailable(`mongod ${binary.version} is not in the local cache and ${host} cannot be reached (${cause})`);
    }
    logger.info(`downloading mongod ${binary.version} from ${host} (first start only; about 100 MB)`);
  }
  const dbPath = path.join(dataDir, 'mongod');
  mkdirSync(dbPath, { recursive: true });
  const server = await MongoMemoryServer.create({ instance: { dbPath, storageEngine: 'wiredTiger', ip: '127.0.0.1', ...(options.port ? { port: options.port } : {}) } });
  const mongod = server.instanceInfo?.instance.mongodProcess;
  return {
    uri: server.getUri().replace(/\/[^/]*$/, '/'),
    kind: 'mongod',
    description: `mongod ${binary.version} (mongodb-memory-server)`,
    // mongodb-memory-server's own watchdog ends mongod when this process ends.
    pid: mongod?.pid ?? 0,
    exited: new Promise((resolve) => (!mongod || mongod.exitCode !== null ? resolve() : mongod.once('exit', () => resolve()))),
    stop: async () => {
      await server.stop({ doCleanup: false });
    },
    stopSync: () => {
      server.instanceInfo?.instance.mongodProcess?.kill('SIGTERM');
    },
  };
}

async function downloadUrl(options: { version: string; platform: string; arch: string; os?: unknown }): Promise<string> {
  // Not re-exported by the package's entry point; a CommonJS module, so its class sits on `default` under ESM.
  const module = (await import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl.js')) as unknown as { MongoBinaryDownloadUrl?: DownloadUrlClass; default?: { MongoBinaryDownloadUrl: DownloadUrlClass } };
  const DownloadUrl = module.MongoBinaryDownloadUrl ?? module.default!.MongoBinaryDownloadUrl;
  return new DownloadUrl(options).getDownloadUrl();
}

type DownloadUrlClass = new (options: unknown) => { getDownloadUrl(): Promise<string> };
