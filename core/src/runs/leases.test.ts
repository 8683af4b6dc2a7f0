import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, createClaims, type Database } from '../db/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createRunLeases } from './leases.ts';

const t = useTestDatabase();
let second: Database;

beforeAll(async () => {
  // Two connections, as two web processes have: the race has to go through the server.
  second = await connectDatabase(t.uri);
});
afterAll(() => second?.close());

async function newRun(id: string, lease?: { owner: string; until: Date }) {
  await t.db.models.Run.create({ _id: id, contextId: 'c', agent: '@acme/a', state: 'working', lastSeq: 0, actorType: 'a2a', actorId: 'x', input: {}, status: {} });
  if (lease) await t.db.models.RunLease.create({ _id: id, ...lease, generation: 3 });
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
