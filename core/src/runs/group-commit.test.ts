import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectDatabase, runEventsAfter, type Database } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createEventLog, LeaseLostError, type EventLog, type StoredEvent, type Tail } from './event-log.ts';
import type { RunEvent, RunStatus } from './model.ts';

/**
 * Group commit (ADR 0029): appends to different runs made at once in one process share their
 * insert and their head update, and each run's log stays as if it had been written alone.
 */
const t = useTestDatabase();
let other: Database;
let log: EventLog;
let otherLog: EventLog;

beforeAll(async () => {
  log = createEventLog(t.db.models);
  other = await connectDatabase(t.uri);
  otherLog = createEventLog(other.models);
});
afterAll(async () => {
  await other?.close();
});

const status = (state: RunStatus['state'], final = false): RunEvent => ({ type: 'status', status: { state, timestamp: new Date().toISOString() }, final });
const step = (output: string): RunEvent => ({ type: 'step', index: 0, stepId: 's', output });

/** A run with its head and first event, as the run store creates it (known to `log` at seq 1, generation 0). */
async function newRun(): Promise<string> {
  const runId = crypto.randomUUID();
  await t.db.models.Run.collection.insertOne({ _id: runId as never, state: 'submitted', lastSeq: 1 });
  await t.db.models.RunEvent.collection.insertOne(log.eventDocument(runId, 1, status('submitted'), 'submitted', 0) as never);
  log.stored(runId, { seq: 1, state: 'submitted', generation: 0 });
  return runId;
}

async function storedOutputs(runId: string): Promise<{ seq: number; output: unknown }[]> {
  const rows = await t.db.models.RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: 1 }).lean();
  return rows.map((row) => ({ seq: row.seq, output: (JSON.parse(row.event) as { output?: unknown }).output }));
}

/** Counts the insert commands sent for events and the update commands sent for heads while `work` runs. */
async function counting<T>(work: () => Promise<T>): Promise<{ result: T; inserts: number; headWrites: number }> {
  const inserts = vi.spyOn(t.db.models.RunEvent.collection, 'insertMany');
  const bulk = vi.spyOn(t.db.models.Run.collection, 'bulkWrite');
  const single = vi.spyOn(t.db.models.Run.collection, 'updateOne');
  try {
    const result = await work();
    return { result, inserts: inserts.mock.calls.length, headWrites: bulk.mock.calls.length + single.mock.calls.length };
  } finally {
    inserts.mockRestore();
    bulk.mockRestore();
    single.mockRestore();
  }
}

describe('group commit of the event log', () => {
  it('stores concurrent appends to many runs in fewer inserts than appends, every run dense and in order', async () => {
    const runs = await Promise.all(Array.from({ length: 40 }, () => newRun()));
    const rounds = 5;
    const { inserts, headWrites } = await counting(() =>
      Promise.all(
        runs.map(async (runId, r) => {
          for (let i = 0; i < rounds; i++) await log.appendAll(runId, i === 0 ? [status('working'), step(`${r}/${i}`)] : [step(`${r}/${i}`)], { fence: 0 });
        }),
      ),
    );
    expect(inserts).toBeLessThan(runs.length * rounds);
    // One status per run, in its first round: fewer head updates than runs.
    expect(headWrites).toBeLessThan(runs.length);
    for (const [r, runId] of runs.entries()) {
      const outputs = await storedOutputs(runId);
      expect(outputs.map((row) => row.seq)).toEqual([1, 2, ...Array.from({ length: rounds }, (_, i) => i + 3)]);
      expect(outputs.slice(2).map((row) => row.output)).toEqual(Array.from({ length: rounds }, (_, i) => `${r}/${i}`));
      const head = await t.db.models.Run.collection.findOne({ _id: runId as never });
      expect(head).toMatchObject({ state: 'working', lastSeq: 2 });
    }
  });

  it("keeps a collision of one run in a batch that run's alone: the runs after it are stored, the colliding run decides again", async () => {
    const [first, colliding, last, fenced] = await Promise.all([newRun(), newRun(), newRun(), newRun()]);
    // Another process appends to `colliding` (same generation) and takes `fenced` over: this process's tails of both are stale.
    await otherLog.append(colliding!, step('other'), { fence: 0 });
    await otherLog.append(fenced!, status('working'), { generation: 1 });
    const { result, inserts } = await counting(() =>
      Promise.allSettled([
        log.appendAll(first!, [step('first a'), step('first b')], { fence: 0 }),
        log.appendAll(colliding!, [step('mine a'), step('mine b')], { fence: 0 }),
        log.appendAll(fenced!, [step('too late')], { fence: 0 }),
        log.appendAll(last!, [step('last a'), step('last b')], { fence: 0 }),
      ]),
    );
    expect(result[0]).toMatchObject({ status: 'fulfilled', value: { seq: 3 } satisfies Partial<Tail> });
    expect(result[1]).toMatchObject({ status: 'fulfilled', value: { seq: 4 } });
    expect(result[2]).toMatchObject({ status: 'rejected', reason: expect.any(LeaseLostError) });
    expect(result[3]).toMatchObject({ status: 'fulfilled', value: { seq: 3 } });
    // One batch, then the colliding run's retry and the runs after the collision again.
    expect(inserts).toBeLessThan(5);
    expect((await storedOutputs(first!)).map((row) => row.output)).toEqual([undefined, 'first a', 'first b']);
    expect((await storedOutputs(colliding!)).map((row) => row.output)).toEqual([undefined, 'other', 'mine a', 'mine b']);
    expect((await storedOutputs(fenced!)).map((row) => row.seq)).toEqual([1, 2]);
    expect((await storedOutputs(last!)).map((row) => row.output)).toEqual([undefined, 'last a', 'last b']);
  });
});

describe('followers of runs this process writes', () => {
  it('take the events this process stored without reading them back: a run ended here needs no read after the wait', async () => {
    const runId = await newRun();
    const finds = vi.spyOn(t.db.models.RunEvent.collection, 'find');
    try {
      const followed: StoredEvent[] = [];
      const following = (async () => {
        for await (const stored of log.follow(runId, 1)) followed.push(stored);
      })();
      // Parked: it has read the log (nothing after seq 1) and waits.
      for (let i = 0; i < 500 && log.watching().followers === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(log.watching().followers).toBe(1);
      const readsBeforeWait = finds.mock.calls.length;
      await log.appendAll(runId, [status('working'), step('done'), status('completed', true)], { fence: 0 });
      await following;
      expect(finds.mock.calls.length - readsBeforeWait).toBe(0);
      // What it was handed is what a read of the log gives.
      expect(followed).toEqual((await log.readAfter(runId, 1)).filter((stored) => stored.event.type !== 'step'));
      expect(followed.map((stored) => stored.seq)).toEqual([2, 4]);
    } finally {
      finds.mockRestore();
    }
  });

  const submitted = (): StoredEvent => ({ seq: 1, event: status('submitted'), state: 'submitted', generation: 0 });
  const parked = async (which: EventLog) => {
    for (let i = 0; i < 500 && which.watching().followers === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(which.watching().followers).toBe(1);
  };

  it('handed the event at the cursor of a run this process writes, waits without reading the log first, and reads nothing to the end', async () => {
    const runId = await newRun();
    const finds = vi.spyOn(t.db.models.RunEvent.collection, 'find');
    try {
      const followed: number[] = [];
      const following = (async () => {
        for await (const stored of log.follow(runId, 1, undefined, { lastSeen: submitted() })) followed.push(stored.seq);
      })();
      await parked(log);
      await log.appendAll(runId, [status('working')], { fence: 0 });
      await log.appendAll(runId, [step('done'), status('completed', true)], { fence: 0 });
      await following;
      expect(followed).toEqual([2, 4]);
      expect(finds.mock.calls.filter(([filter]) => JSON.stringify(filter).includes(runId))).toEqual([]);
    } finally {
      finds.mockRestore();
    }
  });

  it('still reads first when this process wrote past the cursor, and still finds what another process stored before it began', async () => {
    // This process appended after the event the follower was handed: the read finds it.
    const ahead = await newRun();
    await log.appendAll(ahead, [status('working')], { fence: 0 });
    const seen: number[] = [];
    const followingAhead = (async () => {
      for await (const stored of log.follow(ahead, 1, undefined, { lastSeen: submitted() })) seen.push(stored.seq);
    })();
    await expect.poll(() => seen).toEqual([2]);
    await log.appendAll(ahead, [status('completed', true)], { fence: 0 });
    await followingAhead;
    expect(seen).toEqual([2, 3]);

    // Another process stored the next event before the follower began (this process's tail is still 1): the watcher's look-up finds it.
    const elsewhere = await newRun();
    await otherLog.appendAll(elsewhere, [status('working'), status('completed', true)], { fence: 0 });
    const found: number[] = [];
    for await (const stored of log.follow(elsewhere, 1, undefined, { lastSeen: submitted() })) found.push(stored.seq);
    expect(found).toEqual([2, 3]);
  });
});

