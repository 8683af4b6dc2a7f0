import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { DomainError } from '../errors/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { recordMetrics, useTestDatabase } from '../testing/index.ts';
import { createPublishJobs } from './publish-jobs.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'a', email: 'a@x.test', role: 'admin' } as const;

describe('publish and promote jobs in the metrics', () => {
  it('count a failed job once by its operation, and a job that succeeds not at all', async () => {
    const metrics = recordMetrics();
    try {
      const deps = { models: t.db.models, logger: createMemoryLogger(), audit: createAuditLog(t.db.models, createMemoryLogger()) } as Parameters<typeof createPublishJobs>[0];
      const jobs = createPublishJobs(deps);
      const input = { extensionId: '0123456789abcdef01234567', packageName: '@acme/x', destination: 'private' } as const;
      const failed = await jobs.start(admin, { ...input, operation: 'promote' }, async (progress) => {
        await progress('compile', 'running');
        throw new DomainError('REVIEW_FAILED', 'Review found 1 problem(s)');
      });
      expect((await failed.done).state).toBe('failed');
      const succeeded = await jobs.start(admin, { ...input, operation: 'publish' }, async () => ({ version: '1.0.1', origin: { registryUrl: 'http://r.test/' } }));
      expect((await succeeded.done).state).toBe('succeeded');
      expect(await metrics.points('service.jobs.failed')).toEqual([{ attributes: { 'service.job.kind': 'promote' }, value: 1 }]);
    } finally {
      await metrics.stop();
    }
  });
});
