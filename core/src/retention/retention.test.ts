import { Types } from 'mongoose';
import { describe, expect, it } from 'vitest';
import { runEventId } from '../db/index.ts';
import { uuidv7 } from '../ids/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createRetention, RETENTION_BATCH } from './index.ts';

const t = useTestDatabase();
const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 24);

async function seedRun(ageDays: number, state: string, events = 3): Promise<string> {
  const at = now - ageDays * DAY;
  const id = uuidv7(at);
  await t.db.models.Run.collection.insertOne({ _id: id as never, contextId: 'c', agent: '@a/b', state, lastSeq: events, actorType: 'a2a', actorId: 'x', input: {}, status: { state }, artifacts: [], progress: {}, createdAt: new Date(at), updatedAt: new Date(at) });
  if (events) await t.db.models.RunEvent.collection.insertMany(Array.from({ length: events }, (_, i) => ({ _id: runEventId(id, i + 1) as never, runId: id, seq: i + 1, kind: 'status-update', payload: {}, at: new Date(at) })));
  return id;
}

describe('retention', () => {
  it('keeps everything when nothing is set', async () => {
    await seedRun(400, 'completed');
    const result = await createRetention(t.db.models, { runsDays: null, auditDays: null, jobsDays: null }, () => now).sweep();
    expect(result).toEqual({ runs: 0, events: 0, audit: 0, jobs: 0 });
    await t.db.models.Run.collection.deleteMany({});
  });

  it('deletes finished runs older than the setting with their events, never unfinished or newer ones', async () => {
    const old = await seedRun(40, 'completed');
    const stuck = await seedRun(40, 'working');
    const recent = await seedRun(10, 'failed');
    const config = { configId: 'c1', owner: 'x', url: 'https://hook.test/', protocol: '1.0' as const, createdAt: new Date(now) };
    await t.db.models.PushConfig.create([{ _id: 'p-old', runId: old, ...config }, { _id: 'p-recent', runId: recent, ...config }]);
    await t.db.models.PushCursor.create([{ _id: 'p-old', runId: old, contextId: 'c', protocol: '1.0', enqueuedSeq: 2 }, { _id: 'p-recent', runId: recent, contextId: 'c', protocol: '1.0', enqueuedSeq: 2 }]);
    const outbox = { body: '{}', attempts: 3, nextAttemptAt: new Date(now), leaseUntil: new Date(0) };
    await t.db.models.PushDelivery.create([{ _id: 'p-old/000000000003', configRef: 'p-old', runId: old, seq: 3, ...outbox }, { _id: 'p-recent/000000000003', configRef: 'p-recent', runId: recent, seq: 3, ...outbox }]);
    const result = await createRetention(t.db.models, { runsDays: 30, auditDays: null, jobsDays: null }, () => now).sweep();
    expect(result).toMatchObject({ runs: 1, events: 3 });
    const left = (await t.db.models.Run.find({}, { _id: 1 }).lean()).map((r) => r._id).sort();
    expect(left).toEqual([stuck, recent].sort());
    expect(await t.db.models.RunEvent.countDocuments({ runId: old })).toBe(0);
    expect(await t.db.models.RunEvent.countDocuments({ runId: recent })).toBe(3);
    // A deleted run's push configs and outbox rows go with it.
    expect((await t.db.models.PushConfig.find({}, { _id: 1 }).lean()).map((row) => row._id)).toEqual(['p-recent']);
    expect((await t.db.models.PushDelivery.find({}, { _id: 1 }).lean()).map((row) => row._id)).toEqual(['p-recent/000000000003']);
    expect((await t.db.models.PushCursor.find({}, { _id: 1 }).lean()).map((row) => row._id)).toEqual(['p-recent']);
  });

  it('works in bounded batches: a pass looks at most at RETENTION_BATCH runs', async () => {
    await t.db.models.Run.deleteMany({});
    const docs = Array.from({ length: RETENTION_BATCH + 10 }, (_, i) => {
      const at = now - 100 * DAY + i;
      return { _id: uuidv7(at), contextId: 'c', agent: '@a/b', state: 'completed', lastSeq: 0, actorType: 'a2a', actorId: 'x', input: {}, status: {}, artifacts: [], progress: {}, createdAt: new Date(at), updatedAt: new Date(at) };
    });
    await t.db.models.Run.collection.insertMany(docs as never[]);
    const retention = createRetention(t.db.models, { runsDays: 30, auditDays: null, jobsDays: null }, () => now);
    expect((await retention.sweep()).runs).toBe(RETENTION_BATCH);
    expect((await retention.sweep()).runs).toBe(10);
    expect(await t.db.models.Run.countDocuments({})).toBe(0);
  });

  it('deletes old audit rows and old finished jobs and sync history, keeping running jobs', async () => {
    const oid = (ageDays: number) => Types.ObjectId.createFromTime(Math.floor((now - ageDays * DAY) / 1000));
    await t.db.models.AuditEvent.collection.insertMany([40, 5].map((age) => ({ _id: oid(age), actorType: 'ui', actorId: 'a', action: 'x', resourceType: 'y', details: {}, at: new Date(now - age * DAY) })));
    const job = (age: number, state: string) => ({ _id: oid(age), extensionId: new Types.ObjectId(), packageName: '@a/b', operation: 'publish', destination: 'public', state, steps: [], actorId: 'a' });
    await t.db.models.PublishJob.collection.insertMany([job(40, 'succeeded'), job(41, 'running'), job(5, 'failed')]);
    await t.db.models.ImportSyncEvent.collection.insertMany([{ _id: oid(40), extensionId: new Types.ObjectId(), outcome: 'unchanged' }]);
    const result = await createRetention(t.db.models, { runsDays: null, auditDays: 30, jobsDays: 30 }, () => now).sweep();
    expect(result).toMatchObject({ audit: 1, jobs: 2 });
    expect(await t.db.models.AuditEvent.countDocuments({})).toBe(1);
    expect((await t.db.models.PublishJob.find({}, { state: 1 }).lean()).map((j) => j.state).sort()).toEqual(['failed', 'running']);
    expect(await t.db.models.ImportSyncEvent.countDocuments({})).toBe(0);
  });
});
