import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase } from '@service/embedded';
import { createMemoryLogger } from '../log/index.ts';
import { canConnect } from '../net/index.ts';
import { connectDatabase } from './connect.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'embedded-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('embedded database', () => {
  it('keeps data across a stop and a second start, and stops its child process', async () => {
    const logger = createMemoryLogger();
    const first = await startEmbeddedDatabase({ dataDir: dir, logger, allowMongod: false });
    const db1 = await connectDatabase(`${first.uri}service`);
    await db1.models.User.create({ email: 'persist@example.com', passwordHash: 'x', role: 'admin' });
    await db1.close();
    await first.stop();
    const port = Number(new URL(first.uri).port);
    expect(await canConnect('127.0.0.1', port)).toBe(false);

    const second = await startEmbeddedDatabase({ dataDir: dir, logger, allowMongod: false });
    try {
      const db2 = await connectDatabase(`${second.uri}service`);
      expect(await db2.models.User.countDocuments({ email: 'persist@example.com' })).toBe(1);
      await db2.close();
    } finally {
      await second.stop();
    }
  });
});
