import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { createJobList } from './job-list.ts';

const t = useTestDatabase();
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, second));
/** An ObjectId of that second: the page orders by `_id`, whose first bytes are the creation second. */
const idAt = (second: number) => Types.ObjectId.createFromTime(at(second).getTime() / 1000);
const extensionId = new Types.ObjectId();
const steps = [
  { id: 'compile', label: 'Compile', state: 'done' },
  { id: 'review', label: 'Review', state: 'failed', detail: 'Review found 1 problem(s)' },
];

beforeAll(async () => {
  const { PublishJob, ImportJob, ImportSyncEvent } = t.db.models;
  await PublishJob.collection.insertMany([
    { _id: idAt(1), extensionId, packageName: '@acme/a', operation: 'publish', destination: 'private', state: 'succeeded', steps: [{ id: 'compile', label: 'Compile', state: 'done' }], actorId: 'u', createdAt: at(1), updatedAt: at(3) },
    { _id: idAt(4), extensionId, packageName: '@acme/b', operation: 'publish', destination: 'public', state: 'failed', steps, error: { code: 'REVIEW_FAILED', message: 'Review found 1 problem(s)' }, actorId: 'u', createdAt: at(4), updatedAt: at(6) },
  ] as never[]);
  await ImportJob.collection.insertMany([
    { _id: idAt(2), source: 'github', url: 'https://github.com/acme/x', updatePolicy: 'auto', state: 'running', steps: [{ id: 'fetch', label: 'Download', state: 'running' }], actorId: 'u', createdAt: at(2), updatedAt: at(2) },
    { _id: idAt(5), source: 'zip', url: 'x.zip', updatePolicy: 'manual', state: 'awaiting-confirmation', steps: [], staged: { packageName: '@acme/x', version: '1.0.0' }, actorId: 'u', createdAt: at(5), updatedAt: at(5) },
  ] as never[]);
  await ImportSyncEvent.collection.insertMany([
    { _id: idAt(3), extensionId, outcome: 'updated', trigger: 'auto', fromVersion: '1.0.0', toVersion: '1.1.0', actorId: 'worker', createdAt: at(3), updatedAt: at(3) },
    { _id: idAt(6), extensionId, outcome: 'license-changed', trigger: 'auto', reason: 'MIT became GPL-3.0', actorId: 'worker', createdAt: at(6), updatedAt: at(6) },
  ] as never[]);
});

describe('the jobs page', () => {
  it('lists every kind newest first, with state, steps, duration, failure and the page that shows each', async () => {
    const { items, nextBefore } = await createJobList(t.db.models)({});
    expect(items.map((job) => [job.kind, job.state])).toEqual([
      ['sync', 'failed'],
      ['import', 'awaiting-confirmation'],
      ['publish', 'failed'],
      ['sync', 'succeeded'],
      ['import', 'running'],
      ['publish', 'succeeded'],
    ]);
    expect(nextBefore).toBeNull();
    expect(items[2]).toMatchObject({ title: 'publish @acme/b (public)', durationMs: 2000, failure: { step: 'Review', message: 'Review found 1 problem(s)' }, href: `/administration/jobs/${String(idAt(4))}` });
    expect(items[0]).toMatchObject({ outcome: 'license-changed', failure: { step: null, message: 'MIT became GPL-3.0' }, href: `/administration/extensions/${String(extensionId)}` });
    expect(items[1]).toMatchObject({ title: 'import @acme/x@1.0.0 (zip)', durationMs: null, failure: null, href: `/administration/imports/${String(idAt(5))}` });
    expect(items[3]).toMatchObject({ title: 'auto sync: updated 1.0.0 → 1.1.0' });
  });

  it('reads a page at a time: the next page starts below the last job shown, across kinds', async () => {
    const list = createJobList(t.db.models);
    const first = await list({ limit: 4 });
    expect(first.items).toHaveLength(4);
    const second = await list({ limit: 4, before: first.nextBefore });
    expect(second.items.map((job) => job.id)).toEqual([String(idAt(2)), String(idAt(1))]);
    expect(second.nextBefore).toBeNull();
  });

  it('filters by kind and by state (a sync state standing for its outcomes)', async () => {
    const list = createJobList(t.db.models);
    expect((await list({ kind: 'publish' })).items.map((job) => job.id)).toEqual([String(idAt(4)), String(idAt(1))]);
    expect((await list({ state: 'failed' })).items.map((job) => [job.kind, job.id])).toEqual([
      ['sync', String(idAt(6))],
      ['publish', String(idAt(4))],
    ]);
    expect((await list({ kind: 'import', state: 'failed' })).items).toEqual([]);
    expect((await list({ state: 'awaiting-confirmation' })).items.map((job) => job.kind)).toEqual(['import']);
  });
});
