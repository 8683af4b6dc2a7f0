import { beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { createEventLog, createRunLeases, createRunStore, runKeyId, textOf } from '../runs/index.ts';
import { runsLayout1, useTestDatabase } from '../testing/index.ts';
import { migrateRunsToLayout2 } from './index.ts';

/** The previous version's `runs` collection for seven runs (testing/runs-layout-1.ts). */
const fixture = runsLayout1();
const ids = fixture.runIds;
const t = useTestDatabase();

async function seedLayout1() {
  const db = t.db.connection.db!;
  for (const name of ['runs', 'run_events', 'run_leases', 'run_keys', 'migrations']) await db.collection(name).deleteMany({});
  // Keys expire a day after they were written: written now, they are still good.
  const rows = fixture.runs.map((row) => (String(row._id).startsWith('~i/') ? { ...row, createdAt: new Date() } : row));
  await db.collection('runs').insertMany(rows as never[]);
}

function store() {
  const leases = createRunLeases(t.db.models, { profile: t.db.profile, serverTime: t.db.serverTime });
  const eventLog = createEventLog(t.db.models, { finished: leases.finished });
  return createRunStore({ models: t.db.models, eventLog, leases });
}

describe('converting runs stored by the previous version (layout 1 → 2)', () => {
  beforeEach(seedLayout1);

  it('moves every run into the new collections and reads each as it read before', async () => {
    expect(await migrateRunsToLayout2(t.db, createMemoryLogger())).toBe(7);
    const db = t.db.connection.db!;
    expect(await db.collection('runs').countDocuments({ _id: { $gte: '~' } as never })).toBe(0);
    expect(await db.collection('runs').countDocuments({ v: 2 })).toBe(7);
    const runs = store();

    const completed = (await runs.get(ids.completed))!;
    expect(completed).toMatchObject({ state: 'completed', agent: '@acme/summarizer', actorType: 'a2a', actorId: 'client-1' });
    expect(completed.input.parts).toEqual([{ type: 'text', text: 'Summarize: cats.' }, { type: 'data', data: { '': 1, 'a.b': { $x: true } } }, { type: 'file', name: 'a.txt', mediaType: 'text/plain', bytes: 'aGVsbG8=' }]);
    expect(completed.artifacts.map((artifact) => textOf(artifact))).toEqual(['[scripted] Summarize: Summarize: cats.']);
    expect(completed.history.map((message) => message.role)).toEqual(['agent']);
    expect(completed.tail.seq).toBe(4);

    const paused = (await runs.get(ids.paused))!;
    expect(paused.state).toBe('input-required');
    expect(paused.interrupt).toMatchObject({ stepId: 'approval', screenId: 'approve-summary', title: 'Approve the summary' });
    expect(paused.progress).toMatchObject({ stepIndex: 1, outputs: { summary: expect.stringContaining('dogs') } });

    // The caller's answer lived only in the old head's history: it joins the status that took it.
    const answered = (await runs.get(ids.answered))!;
    expect(answered.state).toBe('completed');
    expect(answered.history.map((message) => `${message.role}:${textOf(message)}`)).toEqual(['agent:Calling @acme/summarizer', 'agent:Approve the summary', 'user:approved', 'agent:Resumed', expect.stringMatching(/^agent:\[scripted\] Write a two-sentence teaser/)]);

    expect((await runs.get(ids.canceled))!.state).toBe('canceled');
    expect((await runs.get(ids.failed))!.status.message?.parts).toEqual([{ type: 'text', text: 'The agent failed' }]);

    // A run still working joins the working set with a lapsed lease, and its position with it.
    const orphan = (await runs.get(ids.orphan))!;
    expect(orphan).toMatchObject({ state: 'working', progress: { stepIndex: 1, outputs: { summary: 'Horses run.' } } });
    const lease = await t.db.models.RunLease.collection.findOne({ _id: ids.orphan as never });
    // (FerretDB 1.24 leaves a null out of an upsert's inserted document: no owner either way.)
    expect([lease?.owner ?? null, lease?.generation, (lease?.renewedAt as Date).getTime()]).toEqual([null, 0, 0]);
    expect(await t.db.models.RunLease.collection.countDocuments({})).toBe(1);

    const remote = (await runs.get(ids.remote))!;
    expect(remote.remote).toEqual({ peerId: 'globex', skillId: '@globex/summarizer' });
    expect((await runs.readAll(remote.id)).at(-1)!.event).toMatchObject({ type: 'status', metadata: { remote: { peerId: 'globex', taskId: 'remote-task-1', eventId: 4 } } });

    // A retry right after the upgrade still finds the run its Idempotency-Key created.
    expect(await t.db.models.RunKey.collection.findOne({ _id: runKeyId('client-1', 'key', 'idem-1') as never })).toMatchObject({ runId: ids.completed });
    // Every listing reads the converted heads.
    const listed = await runs.listOwned({ type: 'a2a', id: 'client-1' } as never, { pageSize: 10 });
    expect(listed.total).toBe(5);
  });

  it('goes on where an interrupted conversion stopped, and does nothing once done', async () => {
    const stop = new AbortController();
    const logger = createMemoryLogger();
    const first = migrateRunsToLayout2(t.db, { ...logger, info: (message: string, fields?: Record<string, unknown>) => {
      logger.info(message, fields);
      if (message.startsWith('converted 3 run')) stop.abort();
    } } as never, { batchSize: 3, signal: stop.signal });
    expect(await first).toBe(3);
    // Old rows are still there until every head is converted.
    expect(await t.db.connection.db!.collection('runs').countDocuments({ _id: { $gte: '~' } as never })).toBeGreaterThan(0);
    expect(await migrateRunsToLayout2(t.db, createMemoryLogger(), { batchSize: 3 })).toBe(4);
    expect(await t.db.connection.db!.collection('runs').countDocuments({ v: 2 })).toBe(7);
    expect(await t.db.models.RunEvent.collection.countDocuments({})).toBe(await eventCountOfFixture());
    expect(await migrateRunsToLayout2(t.db, createMemoryLogger())).toBe(0);
  });

  it('converts a batch done twice (a crash after its heads, before its marker) to the same rows', async () => {
    await migrateRunsToLayout2(t.db, createMemoryLogger());
    const events = await t.db.models.RunEvent.collection.find({}).sort({ _id: 1 }).toArray();
    // Forget the marker and put one old head back: the next start converts it again.
    await t.db.connection.db!.collection('migrations').deleteMany({});
    const old = fixture.runs.find((row) => row._id === ids.answered)!;
    await t.db.connection.db!.collection('runs').replaceOne({ _id: ids.answered as never }, old);
    expect(await migrateRunsToLayout2(t.db, createMemoryLogger())).toBe(1);
    expect(await t.db.models.RunEvent.collection.find({}).sort({ _id: 1 }).toArray()).toEqual(events);
  });
});

async function eventCountOfFixture(): Promise<number> {
  // One event per old event row, plus a position event for each of the two unfinished runs (paused, working).
  return fixture.runs.filter((row) => String(row._id).startsWith('~e/')).length + 2;
}
