import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DryMongoBinary } from 'mongodb-memory-server-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { EmbeddedLogger } from './host.ts';
import { MongodUnavailable, startMongod } from './memory-server.ts';
import { startEmbeddedDatabase } from './index.ts';

/** Keeps what is logged, for the assertions on the start log. */
function recordingLogger(): EmbeddedLogger & { records: { message: string }[] } {
  const records: { message: string }[] = [];
  const record = (message: string) => void records.push({ message });
  return { records, debug: record, info: record };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-mongod-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A mongod in mongodb-memory-server's cache is started without any download: which tests can run depends on it. */
const cachedMongod = await DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions({}));
const needsNoCachedMongod = cachedMongod ? ` (skipped: a mongod is cached at ${cachedMongod}, so no download is tried)` : '';
const needsCachedMongod = cachedMongod ? '' : ' (skipped: mongodb-memory-server has no mongod in its cache here)';

/** Runs `work` with MongoDB's download host replaced by `mirror`. */
async function withDownloadMirror<T>(mirror: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env.MONGOMS_DOWNLOAD_MIRROR;
  process.env.MONGOMS_DOWNLOAD_MIRROR = mirror;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env.MONGOMS_DOWNLOAD_MIRROR;
    else process.env.MONGOMS_DOWNLOAD_MIRROR = previous;
  }
}

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function refusingPort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('a real mongod first, FerretDB as the offline fallback', () => {
  it.skipIf(cachedMongod)(`gives up on a download host that does not answer once its probe times out, after one try, not after the downloader retries${needsNoCachedMongod}`, async () => {
    // A host that accepts the connection and never answers: the worst case for a download.
    let connections = 0;
    const silent = net.createServer(() => void connections++).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    try {
      const outcome = await withDownloadMirror(`http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, () => startMongod(path.join(dir, 'silent'), recordingLogger(), { probeMs: 500 }).catch((error: unknown) => error));
      expect(outcome).toBeInstanceOf(MongodUnavailable);
      expect((outcome as Error).message).toMatch(/is not in the local cache and 127\.0\.0\.1:\d+ cannot be reached \(The operation was aborted due to timeout\)$/);
      expect(connections).toBe(1);
    } finally {
      silent.close();
    }
  });

  it.skipIf(cachedMongod)(`falls back to FerretDB when no mongod can be had, and logs why${needsNoCachedMongod}`, async () => {
    const logger = recordingLogger();
    // The download host refuses, here and on a machine with internet alike.
    const db = await withDownloadMirror(`http://127.0.0.1:${await refusingPort()}`, () => startEmbeddedDatabase({ dataDir: path.join(dir, 'fallback'), logger }));
    try {
      expect(db.kind).toBe('ferretdb');
      const line = logger.records.map((r) => r.message).find((m) => m.startsWith('embedded database:'));
      expect(line).toMatch(/FerretDB .* \(mongod: mongod \S+ is not in the local cache and 127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\)\)/);
      expect(line).toContain('When to set MONGODB_URI');
      // The reason is said before FerretDB is built or started, not only after.
      const messages = logger.records.map((r) => r.message);
      expect(messages.findIndex((m) => m.startsWith('mongod not used ('))).toBeGreaterThanOrEqual(0);
      expect(messages.findIndex((m) => m.startsWith('mongod not used ('))).toBeLessThan(messages.indexOf(line!));
    } finally {
      await db.stop();
    }
    // A warm start on the same directory stays on FerretDB without asking the download host again.
    let probes = 0;
    const counting = net.createServer((socket) => (probes++, socket.destroy())).listen(0, '127.0.0.1');
    await new Promise((resolve) => counting.once('listening', resolve));
    try {
      const warmLogger = recordingLogger();
      const warm = await withDownloadMirror(`http://127.0.0.1:${(counting.address() as net.AddressInfo).port}`, () => startEmbeddedDatabase({ dataDir: path.join(dir, 'fallback'), logger: warmLogger }));
      try {
        expect(warm.kind).toBe('ferretdb');
        expect(probes).toBe(0);
        expect(warmLogger.records.map((r) => r.message).find((m) => m.startsWith('embedded database:'))).toContain("(mongod: this data directory is FerretDB's)");
      } finally {
        await warm.stop();
      }
    } finally {
      counting.close();
    }
  });

  it.runIf(cachedMongod)(`starts the cached mongod, and logs it${needsCachedMongod}`, async () => {
    const logger = recordingLogger();
    const db = await startEmbeddedDatabase({ dataDir: path.join(dir, 'cached'), logger });
    try {
      expect(db.kind).toBe('mongod');
      expect(logger.records.map((r) => r.message)).toContainEqual(expect.stringMatching(/^embedded database: mongod /));
    } finally {
      await db.stop();
    }
  });
});
