import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { DomainError } from '../errors/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createPublishJobs } from './publish-jobs.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'a', email: 'a@x.test', role: 'admin' } as const;
const input = { extensionId: '0123456789abcdef01234567', packageName: '@acme/x', operation: 'publish', destination: 'private' } as const;

describe('publish jobs', () => {
  it('records each step as it happens, so a reader sees progress before the end', async () => {
    const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger(), audit: createAuditLog(t.db.models, createMemoryLogger()) });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const midway = new Promise<void>((resolve) => (reached = resolve));
    const { jobId, done } = await jobs.start(admin, input, async (progress) => {
      await progress('compile', 'running');
      await progress('compile', 'done', '@acme/x@1.0.1');
      await progress('review', 'running');
      reached();
      await gate;
      await progress('review', 'done');
      return { version: '1.0.1', origin: { registryUrl: 'http://r.test/' } };
    });
    await midway;
    const during = (await jobs.get(jobId))!;
    expect(during.state).toBe('running');
    expect(during.steps.slice(0, 3)).toEqual([
      { id: 'compile', label: 'Compile', state: 'done', detail: '@acme/x@1.0.1' },
      { id: 'review', label: 'Review', state: 'running' },
      { id: 'pack', label: 'Pack tarball', state: 'pending' },
    ]);
    release();
    expect(await done).toMatchObject({ state: 'succeeded', result: { version: '1.0.1', registryUrl: 'http://r.test/' } });
  });

  it('marks the failing step and keeps the reason', async () => {
    const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger(), audit: createAuditLog(t.db.models, createMemoryLogger()) });
    const { done } = await jobs.start(admin, input, async (progress) => {
      await progress('compile', 'running');
      throw new DomainError('REVIEW_FAILED', 'Review found 1 problem(s)', { details: [{ path: 'flow.json:type', reason: 'x' }] });
    });
    const job = await done;
    expect(job.state).toBe('failed');
    expect(job.error).toMatchObject({ code: 'REVIEW_FAILED', details: [{ path: 'flow.json:type', reason: 'x' }] });
    expect(job.steps[0]).toEqual({ id: 'compile', label: 'Compile', state: 'failed', detail: 'Review found 1 problem(s)' });
  });

  it('writes a failed publish to the audit log once, with the failing step and the reason; a success writes no failure', async () => {
    const audit = createAuditLog(t.db.models, createMemoryLogger());
    const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger(), audit });
    const failed = await jobs.start(admin, { ...input, packageName: '@acme/audited' }, async (progress) => {
      await progress('compile', 'done');
      await progress('review', 'running');
      throw new DomainError('REVIEW_FAILED', 'Review found 2 problem(s)');
    });
    await failed.done;
    const succeeded = await jobs.start(admin, { ...input, packageName: '@acme/audited' }, async () => ({ version: '1.0.0', origin: { registryUrl: 'http://r.test/' } }));
    await succeeded.done;
    await audit.flush();
    const rows = (await audit.list({ limit: 50 })).items.filter((row) => row.action === 'publish.fail' && row.details?.packageName === '@acme/audited');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor: { type: 'ui', id: 'a' },
      resourceType: 'publish_job',
      resourceId: failed.jobId,
      details: { packageName: '@acme/audited', destination: 'private', step: 'review', code: 'REVIEW_FAILED', message: 'Review found 2 problem(s)' },
    });
  });
});
