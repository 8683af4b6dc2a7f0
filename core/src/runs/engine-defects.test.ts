import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose from 'mongoose';
import { connectDatabase, runEventsAfter, type Database } from '../db/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import type { LlmProvider } from '../llm/index.ts';
import { createServices, type Services } from '../index.ts';
import { installExampleAgents, installFlowAgent, testConfig, useTestDatabase, within } from '../testing/index.ts';
import { createA2aOperations } from '../a2a/index.ts';
import { createExtensionReader } from '../extensions/index.ts';
import { createEventLog } from './event-log.ts';
import { createRunExecutor } from './executor.ts';
import type { RemoteAgentCall } from './step-runners.ts';
import { textOf, type RunEvent, type RunMessage } from './model.ts';
import { createRunLeases } from './leases.ts';
import { createRunStore } from './run-store.ts';

/**
 * The run engine's defects found by reading it line by line (issue 24), each as a scenario that
 * two processes (two connections, two service instances) on one database can reach.
 */
const t = useTestDatabase();
let second: Database;

/** An LLM whose answers wait for the test: `release(text)` answers the oldest waiting turn. */
function gatedLlm() {
  const waiting: { resolve: (text: string) => void }[] = [];
  const arrived: (() => void)[] = [];
  const provider: LlmProvider = {
    name: 'gated',
    model: 'gated',
    async *stream() {},
    complete: () =>
      new Promise((resolve) => {
        waiting.push({ resolve: (text) => resolve({ text, toolCalls: [], finishReason: 'stop' } as never) });
        arrived.splice(0).forEach((notify) => notify());
      }),
  };
  return {
    provider,
    async turnStarted() {
      while (waiting.length === 0) await new Promise<void>((resolve) => arrived.push(resolve));
    },
    release(text: string) {
      waiting.shift()!.resolve(text);
    },
  };
}

function servicesOn(database: Database, llm?: LlmProvider): Services {
  return createServices({ config: testConfig({ SERVICE_VENDOR_SCOPE: '@acme' }), logger: createMemoryLogger(), database, ...(llm ? { llm } : {}) });
}

const client = { type: 'a2a', id: 'client-defects', clientId: 'c', grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] } } as never;
const message = (text: string, extra: Partial<RunMessage> = {}): RunMessage => ({ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }], ...extra });

async function storedEvents(runId: string) {
  const rows = await t.db.models.RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: 1 }).lean();
  return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as RunEvent }));
}

async function settled(services: { runs: Pick<Services['runs'], 'get'> }, runId: string, states = ['completed', 'failed', 'canceled', 'input-required']) {
  for (let i = 0; i < 400; i++) {
    const run = await services.runs.get(runId);
    if (run && states.includes(run.state)) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} did not settle`);
}

/** Makes a run's lease look lapsed, as after its worker stalled for longer than a lease. */
async function lapseLease(runId: string) {
  await t.db.models.RunLease.collection.updateOne({ _id: runId as never }, { $set: { renewedAt: new Date(0) } });
}

beforeAll(async () => {
  second = await connectDatabase(t.uri);
  await installExampleAgents(t.db, '@acme', ['summarizer', 'editorial-review']);
});
afterAll(() => second?.close());

describe('run engine defects (issue 24)', () => {
  it('a cancel racing another process\'s append leaves no gap below the terminal event, and a follower ends', async () => {
    const a = servicesOn(t.db);
    const b = servicesOn(second);
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Hold on.'), working: true });
    // Process B stores the next event and is slow to update the run head (its head updates go out as one bulk write, ADR 0029).
    const collection = second.models.Run.collection;
    const bulkWrite = collection.bulkWrite.bind(collection);
    let releaseB!: () => void;
    const gate = new Promise<void>((resolve) => (releaseB = resolve));
    let held = false;
    collection.bulkWrite = (async (...args: Parameters<typeof bulkWrite>) => {
      if (!held) {
        held = true;
        await gate;
      }
      return bulkWrite(...args);
    }) as typeof collection.bulkWrite;
    try {
      const bAppend = b.eventLog.append(run.id, { type: 'status', status: { state: 'working', timestamp: new Date().toISOString() }, final: false }).catch((error: unknown) => error);
      while (!held) await new Promise((resolve) => setTimeout(resolve, 5));
      await a.executor.cancel(run.id);
      releaseB();
      await bAppend;
    } finally {
      collection.bulkWrite = bulkWrite as typeof collection.bulkWrite;
    }
    const events = await storedEvents(run.id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event.type === 'status' && e.event.status.state === 'canceled')).toHaveLength(1);
    // A follower from the start reaches the end.
    const followed = await within(3_000, (async () => {
      const seen: number[] = [];
      for await (const stored of a.eventLog.follow(run.id, 0)) seen.push(stored.seq);
      return seen;
    })());
    expect(followed.at(-1)).toBe(events.at(-1)!.seq);
  });

  it('a worker that lost its lease writes nothing after the takeover', async () => {
    const llmA = gatedLlm();
    const llmB = gatedLlm();
    // A stalls: it does not renew its lease while it waits for its LLM.
    const a = engine(t.db, { llm: llmA.provider, renewMs: 600_000 });
    const b = engine(second, { llm: llmB.provider });
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Stall.'), working: true });
    const finishedA = a.executor.start(run.id, run);
    await llmA.turnStarted();
    // A stalls past its lease; B takes the run over and starts the same step.
    await lapseLease(run.id);
    expect(await b.executor.recoverOrphans()).toContain(run.id);
    await llmB.turnStarted();
    // A wakes up before its next renewal would have told it.
    llmA.release('answer from A');
    await finishedA;
    llmB.release('answer from B');
    await settled(b, run.id, ['completed', 'failed', 'canceled']);
    const texts = (await storedEvents(run.id)).flatMap((e) => (e.event.type === 'artifact' ? [textOf(e.event.artifact)] : []));
    expect(texts).toEqual(['answer from B']);
    expect((await a.runs.get(run.id))!.state).toBe('completed');
  });

  it('a run taken over after a step its `when` skipped continues after it: the skip is stored once, the next step runs on the new worker', async () => {
    const llmA = gatedLlm();
    const llmB = gatedLlm();
    const a = engine(t.db, { llm: llmA.provider, renewMs: 600_000 });
    const b = engine(second, { llm: llmB.provider });
    const { run } = await a.runs.create(client, { agent: '@acme/editorial-review', message: message('Review this.'), working: true });
    void a.executor.start(run.id, run);
    await llmA.turnStarted();
    llmA.release('the summary');
    await settled(a, run.id);
    // Approved: the "not approved" reply is skipped and stored, then A stalls in the teaser's LLM turn.
    await a.executor.resume(run.id, { screenId: 'approve-summary', values: { approved: true } });
    await llmA.turnStarted();
    await lapseLease(run.id);
    expect(await b.executor.recoverOrphans()).toContain(run.id);
    await llmB.turnStarted();
    llmB.release('teaser from B');
    const done = await settled(b, run.id, ['completed', 'failed', 'canceled']);
    llmA.release('teaser from A');
    expect(done.state).toBe('completed');
    const events = await storedEvents(run.id);
    expect(events.flatMap((e) => (e.event.type === 'artifact' ? [textOf(e.event.artifact)] : []))).toEqual(['teaser from B']);
    expect(events.flatMap((e) => (e.event.type === 'step' ? [[e.event.stepId, e.event.skipped ?? false]] : []))).toEqual([
      ['summary', false],
      ['not-approved', true],
      ['teaser', false],
    ]);
  });

  it('a pause takes one answer: of two different answers racing from two processes, one is refused', async () => {
    const a = servicesOn(t.db);
    const b = servicesOn(second);
    const { run } = await a.runs.create(client, { agent: '@acme/editorial-review', message: message('Review this.') });
    await a.executor.start(run.id);
    await settled(a, run.id);
    const outcomes = await Promise.allSettled([
      a.executor.resume(run.id, { screenId: 'approve-summary', values: { approved: true, notes: 'from A' } }),
      b.executor.resume(run.id, { screenId: 'approve-summary', values: { approved: false, notes: 'from B' } }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined;
    expect(refused?.reason).toMatchObject({ code: 'CONFLICT' });
    expect(String((refused?.reason as Error).message)).toMatch(/working|completed/);
  });

  it('a step that calls a peer and is run again after a crash carries the same step key, so the peer writes once', async () => {
    const writes = new Map<string, number>();
    let calls = 0;
    const peer = (crash: boolean) => async (_agent: string, input: string, options?: { idempotencyKey?: string }) => {
      calls++;
      const key = options?.idempotencyKey ?? crypto.randomUUID();
      writes.set(key, (writes.get(key) ?? 0) + 1);
      // The first process dies right after the peer stored the call: its answer never arrives.
      return crash ? new Promise<string>(() => {}) : `peer answer to ${input}`;
    };
    const a = engine(t.db, { peer: peer(true), renewMs: 600_000 });
    const b = engine(second, { peer: peer(false) });
    await installCallingAgent();
    const { run } = await a.runs.create(client, { agent: '@acme/caller', message: message('Ask the peer.'), working: true });
    void a.executor.start(run.id, run);
    while (calls < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await lapseLease(run.id);
    expect(await b.executor.recoverOrphans()).toContain(run.id);
    const done = await settled(b, run.id, ['completed', 'failed']);
    expect(done.state).toBe('completed');
    expect(calls).toBe(2);
    expect(writes.size).toBe(1);
  });

  it('an answer whose wait starts from a lagging run head answers with the state after the answer', async () => {
    const a = servicesOn(t.db);
    const ops = createA2aOperations({ card: a.agentCard, cardV1: async () => ({}), defaultAgent: async () => null, startRun: a.useCases.runs.start, answerPause: a.useCases.runs.answer, runs: a.runs, eventLog: a.eventLog, executor: a.executor });
    const { run } = await a.runs.create(client, { agent: '@acme/editorial-review', message: message('Review this draft.') });
    await a.executor.start(run.id);
    const paused = await settled(a, run.id);
    // The head's `lastSeq` is a hint that can lag the log (its update lands after the event).
    await t.db.models.Run.collection.updateOne({ _id: run.id as never }, { $set: { lastSeq: paused.lastSeq - 1 } });
    const done = await ops.sendAndWait(client, { message: message('', { runId: run.id, parts: [{ type: 'data', data: { approved: true, notes: 'ok' } }] }) }, null, null, { returnImmediately: false, signal: new AbortController().signal });
    expect(done.state).toBe('completed');
  });

  it('ListTasks counts every task of a client exactly, past 2 000', async () => {
    const a = servicesOn(t.db);
    const owner = { ...(client as object), id: 'client-many' } as never;
    const ids: string[] = [];
    for (let from = 0; from < 2_050; from += 50) {
      const created = await Promise.all(Array.from({ length: 50 }, (_, i) => a.runs.create(owner, { agent: '@acme/summarizer', message: message(`task ${from + i}`) })));
      ids.push(...created.map(({ run }) => run.id));
    }
    const page = await a.runs.listOwned(owner, { pageSize: 10 });
    expect(page.total).toBe(2_050);
    // Never started: once their leases lapsed, every later recovery pass in this file would take all 2 050 over.
    await t.db.models.RunLease.collection.deleteMany({ _id: { $in: ids as never[] } });
  }, 120_000);

  it('a run head stays the same size however many status messages its run stores', async () => {
    const a = servicesOn(t.db);
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Loop.') });
    const sizeOf = async () => mongoose.mongo.BSON.calculateObjectSize((await t.db.models.Run.collection.findOne({ _id: run.id as never }))!);
    const status = (i: number): RunEvent => ({ type: 'status', final: false, status: { state: 'working', timestamp: new Date().toISOString(), message: { id: `m${i}`, role: 'agent', parts: [{ type: 'text', text: `step ${i} `.repeat(20) }] } } });
    await a.eventLog.append(run.id, status(0));
    const before = await sizeOf();
    for (let i = 1; i <= 100; i++) await a.eventLog.append(run.id, status(i));
    expect(await sizeOf()).toBeLessThan(before + 512);
  });

  it('retention removes everything of a run: its events, keys and listing rows', async () => {
    const a = servicesOn(t.db);
    const owner = { ...(client as object), id: 'client-retention' } as never;
    const { run } = await a.runs.create(owner, { agent: '@acme/summarizer', message: message('Forget me.'), idempotencyKey: 'forget-me', working: true });
    await a.executor.start(run.id, run);
    await settled(a, run.id);
    const { createRetention } = await import('../retention/index.ts');
    const later = Date.now() + 3 * 86_400_000;
    await createRetention(t.db.models, { runsDays: 1, auditDays: null, jobsDays: null }, () => later).sweep();
    const left: string[] = [];
    for (const name of (await t.db.connection.db!.listCollections().toArray()).map((c) => c.name)) {
      const rows = await t.db.connection.db!.collection(name).find({}).toArray();
      for (const row of rows) if (JSON.stringify(row).includes(run.id)) left.push(`${name}:${String(row._id)}`);
    }
    expect(left).toEqual([]);
  });
});

/** The run engine as the services wire it; `renewMs` stretches lease renewals (a worker that stalls), `peer` answers sub-agent calls to peers. */
function engine(database: Database, options: { llm?: LlmProvider; peer?: RemoteAgentCall; renewMs?: number } = {}) {
  const leases = createRunLeases(database.models, { profile: database.profile, serverTime: database.serverTime, ...(options.renewMs ? { renewMs: options.renewMs } : {}) });
  const eventLog = createEventLog(database.models, { finished: leases.finished });
  const runs = createRunStore({ models: database.models, eventLog, leases });
  const config = testConfig({ SERVICE_VENDOR_SCOPE: '@acme' });
  const llm = options.llm ?? servicesOn(database).llm;
  const executor = createRunExecutor({ runs, eventLog, extensions: createExtensionReader(database.models, config.identity), llm, logger: createMemoryLogger(), leases, ...(options.peer ? { remoteAgent: options.peer } : {}) });
  return { runs, executor, eventLog };
}


describe('a database outage under a running step (issue 25, seen in CI)', () => {
  it('does not fail the run: the worker stops without an ending, and the run is continued from its last stored step once the database answers', async () => {
    const llm = gatedLlm();
    const a = engine(t.db, { llm: llm.provider });
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Outage mid-step.'), working: true });
    // The database goes away while the step's LLM turn runs: the append of its answer finds no server.
    const appendAll = a.eventLog.appendAll.bind(a.eventLog);
    a.eventLog.appendAll = (async (...args: Parameters<typeof appendAll>) => {
      if (args[1].some((event) => event.type === 'artifact')) throw Object.assign(new Error('connection 3 to 127.0.0.1:27017 closed'), { name: 'MongoNetworkError' });
      return appendAll(...args);
    }) as typeof appendAll;
    const finished = a.executor.start(run.id, run);
    await llm.turnStarted();
    llm.release('answer lost with the connection');
    expect(await finished).toBeNull();
    expect((await storedEvents(run.id)).map((e) => (e.event.type === 'status' ? e.event.status.state : e.event.type))).toEqual(['created', 'working']);
    // Back: the lease lapses and the recovery pass continues the run, which ends once. The worker
    // frees its lease in the background; a renewal in flight until then could undo the lapse.
    await expect.poll(async () => (await t.db.models.RunLease.collection.findOne({ _id: run.id as never }))?.owner ?? null).toBeNull();
    await lapseLease(run.id);
    const b = engine(second);
    expect(await b.executor.recoverOrphans()).toContain(run.id);
    expect((await settled(b, run.id, ['completed', 'failed', 'canceled'])).state).toBe('completed');
    const events = await storedEvents(run.id);
    expect(events.filter((e) => e.event.type === 'status' && ['completed', 'failed'].includes(e.event.status.state)).map((e) => (e.event as { status: { state: string } }).status.state)).toEqual(['completed']);
  });
});

describe('a follower whose cursor is past the log\'s end (seen in CI: a stream with Last-Event-ID 999999999999)', () => {
  it('ends when the run ends, though no event at or after its cursor ever comes', async () => {
    const a = engine(t.db);
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Past the end.'), working: true });
    await a.eventLog.append(run.id, { type: 'status', status: { state: 'working', timestamp: new Date().toISOString() }, final: false }, { fence: 0 });
    const followed = (async () => {
      const seen: number[] = [];
      for await (const stored of a.eventLog.follow(run.id, 999_999_999_999)) seen.push(stored.seq);
      return seen;
    })();
    // The follower has read where the run stood (working) before the run ends.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await a.eventLog.append(run.id, { type: 'status', status: { state: 'completed', timestamp: new Date().toISOString() }, final: true }, { fence: 0 });
    expect(await within(5_000, followed)).toEqual([]);
  });
});

describe('recovery of a run whose head lags its log', () => {
  it('does not continue a run whose log ended after its head was last moved (a crash between the two): the head is made good instead', async () => {
    const a = engine(t.db);
    const { run } = await a.runs.create(client, { agent: '@acme/summarizer', message: message('Crash after the end.'), working: true });
    // The end is stored, then the process dies before moving the head.
    const head = await t.db.models.Run.collection.findOne({ _id: run.id as never });
    await a.eventLog.append(run.id, { type: 'status', final: true, status: { state: 'completed', timestamp: new Date().toISOString() } }, { fence: 0 });
    await t.db.models.Run.collection.replaceOne({ _id: run.id as never }, head!);
    await lapseLease(run.id);
    const b = engine(second);
    expect(await b.executor.recoverOrphans()).not.toContain(run.id);
    await expect.poll(async () => (await t.db.models.Run.collection.findOne({ _id: run.id as never }))?.state).toBe('completed');
    expect((await storedEvents(run.id)).map((e) => e.event.type)).toEqual(['created', 'status', 'status']);
  });
});

async function installCallingAgent() {
  await installFlowAgent(t.db, '@acme', '@acme/caller', [{ kind: 'call', id: 'ask-peer', agent: '@globex/far-away', input: '{{input}}' }], ['@globex/far-away']);
}
