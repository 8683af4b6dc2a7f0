import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
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

describe('a real mongod first, FerretDB as the offline fallback', () => {
  it('gives up on a download host that does not answer within the probe time, not after the downloader retries', async () => {
    // A host that accepts the connection and never answers: the worst case for a download.
    const silent = net.createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const previous = process.env.MONGOMS_DOWNLOAD_MIRROR;
    process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    const started = Date.now();
    try {
      const attempt = startMongod(path.join(dir, 'silent'), recordingLogger(), { probeMs: 500 });
      // Where a mongod is already cached, no download is tried at all.
      const outcome = await attempt.then(async (db) => (await db.stop(), 'cached' as const), (error: unknown) => error);
      if (outcome !== 'cached') {
        expect(outcome).toBeInstanceOf(MongodUnavailable);
        expect((outcome as Error).message).toMatch(/is not in the local cache and 127\.0\.0\.1:\d+ cannot be reached/);
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    } finally {
      if (previous === undefined) delete process.env.MONGOMS_DOWNLOAD_MIRROR;
      else process.env.MONGOMS_DOWNLOAD_MIRROR = previous;
      silent.close();
    }
  });

  it('starts the first server it can have and logs which one and why', async () => {
    const logger = recordingLogger();
    const started = Date.now();
    const db = await startEmbeddedDatabase({ dataDir: path.join(dir, 'default'), logger });
    try {
      const line = logger.records.map((r) => r.message).find((m) => m.startsWith('embedded database:'));
      if (db.kind === 'ferretdb') {
        expect(line).toMatch(/FerretDB .* \(mongod: mongod \S+ is not in the local cache and \S+ cannot be reached/);
        expect(line).toContain('When to set MONGODB_URI');
        expect(Date.now() - started).toBeLessThan(15_000);
      } else {
        expect(line).toMatch(/^embedded database: mongod /);
      }
    } finally {
      await db.stop();
    }
  });
});
