import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createPublishJobs } from './publish-jobs.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'a', email: 'a@x.test', role: 'admin' } as const;
const input = { extensionId: '0123456789abcdef01234567', packageName: '@acme/x', operation: 'publish', destination: 'private' } as const;

describe('publish jobs', () => {
  it('records each step as it happens, so a reader sees progress before the end', async () => {
    const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger() });
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
    const jobs = createPublishJobs({ models: t.db.models, logger: createMemoryLogger() });
    const { done } = await jobs.start(admin, input, async (progress) => {
      await progress('compile', 'running');
      throw new DomainError('REVIEW_FAILED', 'Review found 1 problem(s)', { details: [{ path: 'flow.json:type', reason: 'x' }] });
    });
    const job = await done;
    expect(job.state).toBe('failed');
    expect(job.error).toMatchObject({ code: 'REVIEW_FAILED', details: [{ path: 'flow.json:type', reason: 'x' }] });
    expect(job.steps[0]).toEqual({ id: 'compile', label: 'Compile', state: 'failed', detail: 'Review found 1 problem(s)' });
  });
});
