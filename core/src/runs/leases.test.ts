import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, createClaims, runIdOfLease, runLeaseId, runLeaseRange, type Database } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import type { Actor } from '../auth/index.ts';
import { createEventLog } from './event-log.ts';
import { createRunLeases } from './leases.ts';
import { createRunStore } from './run-store.ts';

const t = useTestDatabase();
let second: Database;

beforeAll(async () => {
  // Two connections, as two web processes have: the race has to go through the server.
  second = await connectDatabase(t.uri);
});
afterAll(() => second?.close());

async function newRun(id: string, lease?: { owner: string; until: Date }) {
  await t.db.models.Run.create({ _id: id, contextId: 'c', agent: '@acme/a', state: 'working', lastSeq: 0, actorType: 'a2a', actorId: 'x', input: {}, status: {} });
  if (lease) await t.db.models.RunLease.create({ _id: runLeaseId(id), ...lease, generation: 3 });
}

describe('claims and run leases across processes', () => {
  it('an insert-once claim has exactly one winner among racing connections', async () => {
    for (let round = 0; round < 10; round++) {
      const racers = [createClaims(t.db.models), createClaims(second.models), createClaims(t.db.models), createClaims(second.models)];
      const won = await Promise.all(racers.map((c) => c.once(`race:${round}`)));
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  });

  it('a lapsed lease is taken over by exactly one of several racing workers, and only then', async () => {
    for (let round = 0; round < 8; round++) {
      await newRun(`run-${round}`, { owner: 'dead-worker', until: new Date(Date.now() - 1_000) });
      const workers = [createRunLeases(t.db.models), createRunLeases(second.models), createRunLeases(t.db.models), createRunLeases(second.models)];
      const held = await Promise.all(workers.map((w) => w.hold(`run-${round}`)));
      expect(held.filter(Boolean)).toHaveLength(1);
      await Promise.all(held.map((release) => release?.()));
    }
    await newRun('run-held', { owner: 'live-worker', until: new Date(Date.now() + 60_000) });
    expect(await createRunLeases(second.models).hold('run-held')).toBeNull();
  });

  it('a takeover whose winner died before recording its lease is won again after a lease period', async () => {
    await newRun('run-dead-winner', { owner: 'dead-worker', until: new Date(Date.now() - 1_000) });
    // The winner of generation 3 claimed and then died.
    await t.db.models.Claim.create({ _id: 'run-lease:run-dead-winner:3', owner: 'ghost', at: new Date(Date.now() - 10_000) });
    const held = await Promise.all([createRunLeases(t.db.models), createRunLeases(second.models), createRunLeases(t.db.models)].map((w) => w.hold('run-dead-winner')));
    expect(held.filter(Boolean)).toHaveLength(1);
    await Promise.all(held.map((release) => release?.()));
  });

  it('a lease renewal never undoes a concurrent write to the run', async () => {
    await newRun('run-busy');
    const release = (await createRunLeases(t.db.models).hold('run-busy'))!;
    // The run document is not touched by leases at all.
    await t.db.models.Run.updateOne({ _id: 'run-busy' }, { $set: { state: 'completed' } });
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect((await t.db.models.Run.findById('run-busy').lean())!.state).toBe('completed');
    await release();
  });

  it('a worker whose lease renewal fails (its database went away) stops the run and says so', async () => {
    const lonely = await connectDatabase(t.uri);
    const logger = createMemoryLogger();
    const leases = createRunLeases(lonely.models, logger);
    await newRun('renewal-fails');
    let lost = false;
    const release = await leases.hold('renewal-fails', () => (lost = true));
    expect(release).not.toBeNull();
    await lonely.close();
    const deadline = Date.now() + 5_000;
    while (!lost && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lost).toBe(true);
    expect(JSON.stringify(logger.records)).toContain('run lease renewal failed');
    await release?.();
  });

  it('a released lease can be taken again', async () => {
    await newRun('run-again');
    const first = createRunLeases(t.db.models);
    const release = await first.hold('run-again');
    expect(release).not.toBeNull();
    await release!();
    const again = await createRunLeases(second.models).hold('run-again');
    expect(again).not.toBeNull();
    await again!();
  });
});

describe('the recovery working set (run_leases)', () => {
  const quiet = (id: string) => t.db.models.Run.collection.updateOne({ _id: id as never }, { $set: { updatedAt: new Date(Date.now() - 60_000) } });

  it('a run is leased to its creator from creation (no claim) until it finishes, and then leaves the working set', async () => {
    const leases = createRunLeases(t.db.models);
    const eventLog = createEventLog(t.db.models, { finished: leases.finished });
    const runs = createRunStore({ models: t.db.models, eventLog, leases });
    const actor = { type: 'a2a', id: 'client-ws', permissions: [] } as unknown as Actor;
    const { run } = await runs.create(actor, { agent: '@acme/a', message: { kind: 'message', messageId: 'm-ws-1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] } });
    const lease = (await t.db.models.RunLease.findById(runLeaseId(run.id)).lean())!;
    expect(lease.owner).toBeTruthy();
    // Another process cannot take it while the creator holds it; the creator holds it without a claim.
    expect(await createRunLeases(second.models).hold(run.id)).toBeNull();
    const release = (await leases.hold(run.id, () => undefined, { owned: true }))!;
    expect(await t.db.models.Claim.exists({ _id: new RegExp(`^run-lease:${run.id}`) })).toBeNull();
    const status = (state: 'input-required' | 'completed') => ({ kind: 'status-update' as const, taskId: run.id, contextId: run.contextId, final: true, status: { state, timestamp: new Date().toISOString() } });
    await eventLog.append(run.id, status('input-required'));
    expect(await t.db.models.RunLease.exists({ _id: runLeaseId(run.id) })).toBeTruthy();
    await eventLog.append(run.id, status('completed'));
    // Finished: nothing is written for the lease on the request's path; it lapses and the next
    // recovery pass removes it.
    await release();
    expect((await t.db.models.RunLease.findById(runLeaseId(run.id)).lean())?.owner).toBe(lease.owner);
    await t.db.models.RunLease.updateOne({ _id: runLeaseId(run.id) }, { $set: { until: new Date(Date.now() - 1) } });
    await leases.orphans({ remote: false });
    expect(await t.db.models.RunLease.exists({ _id: runLeaseId(run.id) })).toBeNull();
  });

  it('finds quiet runs with a free or lapsed lease, local and remote apart, and drops rows of finished runs', async () => {
    await t.db.models.RunLease.deleteMany({ _id: runLeaseRange() });
    const lapsed = { owner: 'dead-worker', until: new Date(Date.now() - 1_000) };
    await newRun('ws-local', lapsed);
    await newRun('ws-remote', lapsed);
    await t.db.models.Run.updateOne({ _id: 'ws-remote' }, { $set: { progress: { remote: { peerId: 'p', remoteTaskId: 'r-1' } } } });
    await newRun('ws-untracked');
    await newRun('ws-done', lapsed);
    await t.db.models.Run.updateOne({ _id: 'ws-done' }, { $set: { state: 'completed' } });
    await newRun('ws-held', { owner: 'live-worker', until: new Date(Date.now() + 60_000) });
    await t.db.models.RunLease.create({ _id: runLeaseId('ws-vanished'), owner: null, until: null });
    for (const id of ['ws-local', 'ws-remote', 'ws-untracked', 'ws-done', 'ws-held']) await quiet(id);

    const leases = createRunLeases(t.db.models);
    expect(await leases.orphans({ remote: false })).toEqual(['ws-local']);
    expect(await leases.orphans({ remote: true })).toEqual(['ws-remote']);
    const tracked = (await t.db.models.RunLease.find({ _id: runLeaseRange() }, { _id: 1 }).lean()).map((row) => runIdOfLease(row._id)).sort();
    expect(tracked).toEqual(['ws-held', 'ws-local', 'ws-remote']);
  });

  it('gives unfinished runs of an older database a lease row once, so the recovery sees them', async () => {
    await t.db.models.RunLease.deleteMany({ _id: runLeaseRange() });
    await t.db.models.Migration.deleteMany({});
    await newRun('ws-old-working');
    const leases = createRunLeases(t.db.models);
    expect(await leases.trackUnfinishedRuns()).toBeGreaterThanOrEqual(1);
    expect(await t.db.models.RunLease.exists({ _id: runLeaseId('ws-old-working') })).toBeTruthy();
    expect(await t.db.models.RunLease.exists({ _id: runLeaseId('ws-done') })).toBeNull();
    await t.db.models.RunLease.deleteMany({ _id: runLeaseRange() });
    expect(await createRunLeases(second.models).trackUnfinishedRuns()).toBe(0);
    expect(await t.db.models.RunLease.countDocuments({ _id: runLeaseRange() })).toBe(0);
  });
});
