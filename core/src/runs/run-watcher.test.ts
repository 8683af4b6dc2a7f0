import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase, type Database } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createEventLog, type EventLog, type Tail } from './event-log.ts';
import type { RunEvent } from './model.ts';

/**
 * Followers waiting on runs that another process works (ADR 0028): one watcher per process
 * looks for their next events, so waiting costs the database the same whatever their number.
 * The "other process" is a second connection with its own event log, as in engine-defects.
 */
const t = useTestDatabase();
/** The follower's process: its connection reports every command it sends. */
let reader: Database;
const commands: string[] = [];
/** Connection upkeep, not work a follower asked for. */
const UPKEEP = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'buildInfo']);

/** Only a replica set (or a sharded cluster) offers change streams; FerretDB 1.x and 2 and a standalone MongoDB do not. */
async function offersChangeStreams(): Promise<boolean> {
  if (inject('mongoKind') !== 'mongodb') return false;
  const connection = await mongoose.createConnection(inject('mongoUri')).asPromise();
  try {
    const hello = await connection.db!.command({ hello: 1 });
    return Boolean(hello.setName) || hello.msg === 'isdbgrid';
  } finally {
    await connection.close();
  }
}
const changeStreams = await offersChangeStreams();

beforeAll(async () => {
  const url = new URL(t.uri);
  url.searchParams.set('monitorCommands', 'true');
  reader = await connectDatabase(url.toString());
  reader.connection.getClient().on('commandStarted', (event) => {
    if (!UPKEEP.has(event.commandName)) commands.push(event.commandName);
  });
});
afterAll(() => reader?.close());

const status = (state: 'working' | 'completed', final = false): RunEvent => ({ type: 'status', status: { state, timestamp: new Date().toISOString() }, final });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let runs = 0;

/** A run the writer process works: created and working (seq 2), nothing final yet. */
async function workingRun(writer: EventLog): Promise<string> {
  const runId = `0190f5e4-0000-7000-8000-${String(++runs).padStart(12, '0')}`;
  const created: RunEvent = { type: 'created', runId, contextId: 'c', agent: '@acme/a', input: { id: 'm', role: 'user', parts: [] }, status: { state: 'submitted', timestamp: new Date().toISOString() } };
  await writer.appendAll(runId, [created, status('working')], { knownTail: { seq: 0, state: 'submitted', generation: 0 } as Tail });
  return runId;
}

/** Follows `runId` from the start; `seqs` fills as events arrive, `done` settles when the follower ends. */
function follower(log: EventLog, runId: string, signal?: AbortSignal) {
  const seqs: number[] = [];
  const done = (async () => {
    for await (const stored of log.follow(runId, 0, signal)) seqs.push(stored.seq);
  })();
  return { seqs, done };
}

/** Waits until `log`'s watcher holds `followers` waiting followers (they have read what there was). */
async function untilWaiting(log: EventLog, followers: number) {
  for (let i = 0; i < 500 && log.watching().followers !== followers; i++) await sleep(10);
  expect(log.watching().followers).toBe(followers);
}

/** The database commands the reader sends during `ms`. */
async function commandsDuring(ms: number): Promise<string[]> {
  commands.length = 0;
  await sleep(ms);
  return commands.splice(0);
}

describe('following runs worked by another process', () => {
  it('costs the database the same commands per interval with 40 waiting followers as with one', async () => {
    const writer = createEventLog(t.db.models);
    const log = createEventLog(reader.models);
    const perCount = new Map<number, number>();
    for (const count of [1, 40]) {
      const stop = new AbortController();
      const ids = await Promise.all(Array.from({ length: count }, () => workingRun(writer)));
      const followers = ids.map((runId) => follower(log, runId, stop.signal));
      await untilWaiting(log, count);
      perCount.set(count, (await commandsDuring(1_000)).length);
      stop.abort();
      await Promise.all(followers.map((f) => f.done));
    }
    // One look-up per 200 ms interval for all of them (about 5 a second); one poll per follower would be 40 times as many.
    expect(perCount.get(1)).toBeGreaterThan(0);
    expect(perCount.get(40)!).toBeLessThanOrEqual(perCount.get(1)! + 2);
  });

  it('a waiting follower sends no query of its own: with the watcher interval an hour, it sends none at all', async () => {
    const writer = createEventLog(t.db.models);
    const log = createEventLog(reader.models, { watch: { pollMs: 3_600_000 } });
    const stop = new AbortController();
    const followers = await Promise.all(Array.from({ length: 5 }, async () => follower(log, await workingRun(writer), stop.signal)));
    await untilWaiting(log, 5);
    expect(await commandsDuring(1_000)).toEqual([]);
    stop.abort();
    await Promise.all(followers.map((f) => f.done));
    expect(log.watching()).toMatchObject({ runs: 0, followers: 0 });
  });

  it('delivers events appended by the other process, and the follower ends at the final one', async () => {
    const writer = createEventLog(t.db.models);
    const log = createEventLog(reader.models);
    const runId = await workingRun(writer);
    const one = follower(log, runId);
    await untilWaiting(log, 1);
    await writer.append(runId, { type: 'artifact', artifact: { id: 'a', parts: [{ type: 'text', text: 'x' }] } });
    await writer.append(runId, status('completed', true));
    await one.done;
    expect(one.seqs).toEqual([1, 2, 3, 4]);
    expect(log.watching().runs).toBe(0);
  });

  it('wakes a follower at once on an append in its own process, without waiting for the interval', async () => {
    const log = createEventLog(reader.models, { watch: { pollMs: 3_600_000 } });
    const runId = await workingRun(log);
    const one = follower(log, runId);
    await untilWaiting(log, 1);
    await log.append(runId, status('completed', true));
    // An hour-long interval: only the in-process wake-up can have delivered it.
    await one.done;
    expect(one.seqs).toEqual([1, 2, 3]);
  });

  it('shares one watcher entry among the followers of one run, and drops it when they stop', async () => {
    const writer = createEventLog(t.db.models);
    const log = createEventLog(reader.models);
    const runId = await workingRun(writer);
    const stop = new AbortController();
    const followers = Array.from({ length: 10 }, () => follower(log, runId, stop.signal));
    await untilWaiting(log, 10);
    expect(log.watching()).toMatchObject({ runs: 1, followers: 10 });
    stop.abort();
    await Promise.all(followers.map((f) => f.done));
    expect(log.watching()).toMatchObject({ runs: 0, followers: 0 });
    expect(followers.every((f) => f.seqs.join() === '1,2')).toBe(true);
  });
});

describe('following through a change stream', () => {
  it.skipIf(!changeStreams)(`wakes cross-process followers from the change stream on a replica set${changeStreams ? '' : ' (skipped: the test server is not a replica set, so it offers no change streams; the poll above is what runs here)'}`, async () => {
    const writer = createEventLog(t.db.models);
    const log = createEventLog(reader.models, { watch: { pollMs: 3_600_000 } });
    const runId = await workingRun(writer);
    const one = follower(log, runId);
    await untilWaiting(log, 1);
    for (let i = 0; i < 500 && !log.watching().changeStream; i++) await sleep(10);
    expect(log.watching().changeStream).toBe(true);
    await writer.append(runId, status('completed', true));
    await one.done;
    expect(one.seqs).toEqual([1, 2, 3]);
  });
});
