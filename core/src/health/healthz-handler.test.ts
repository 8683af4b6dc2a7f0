import { describe, expect, it } from 'vitest';
import { createDatabase } from '../db/index.ts';
import { findFreePort } from '../net/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createHealthzHandler } from './index.ts';

const t = useTestDatabase();

describe('GET /healthz', () => {
  it('is 200 with the database up', async () => {
    const handler = createHealthzHandler({ database: t.db, version: '1.2.3' });
    const response = await handler(new Request('http://x/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', version: '1.2.3', checks: { database: { status: 'up' } } });
  });

  it('is 503 when the database is unreachable', async () => {
    const port = await findFreePort();
    const down = createDatabase(`mongodb://127.0.0.1:${port}/nothing`, { serverSelectionTimeoutMS: 300 });
    try {
      const handler = createHealthzHandler({ database: down, version: '1.2.3' });
      const response = await handler(new Request('http://x/healthz'));
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ status: 'degraded', checks: { database: { status: 'down' } } });
    } finally {
      await down.close();
    }
  });

  it("is 503 degraded, naming why, while this process's last write failed for lack of disk space", async () => {
    const full = { ...t.db, storageFailure: () => ({ at: '2026-01-02T03:04:05.000Z', reason: 'out of disk space (OutOfDiskSpace)' }) };
    const response = await createHealthzHandler({ database: full, version: '1.2.3' })(new Request('http://x/healthz'));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'up', storage: { status: 'full', reason: 'out of disk space (OutOfDiskSpace)', since: '2026-01-02T03:04:05.000Z' } } },
    });
  });
});
