import { describe, expect, it } from 'vitest';
import type { Actor } from '../auth/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createEventLog } from './event-log.ts';
import { createRunLeases } from './leases.ts';
import { createRunStore, runKeyId } from './run-store.ts';
import type { RunMessage, RunState } from './model.ts';

const t = useTestDatabase();

function store() {
  const leases = createRunLeases(t.db.models, { profile: t.db.profile, serverTime: t.db.serverTime });
  const eventLog = createEventLog(t.db.models, { finished: leases.finished });
  return { runs: createRunStore({ models: t.db.models, eventLog, leases }), eventLog };
}

const message = (text: string, contextId?: string): RunMessage => ({ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }], ...(contextId ? { contextId } : {}) });
const actor = (id: string) => ({ type: 'a2a', id }) as unknown as Actor;

describe('run heads and their listings', () => {
  it('lists a caller\'s tasks newest status first, a page at a time, by state or context, with an exact total', async () => {
    const { runs, eventLog } = store();
    const owner = actor('lister');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await runs.create(owner, { agent: '@acme/a', message: message(`task ${i}`, i % 3 === 0 ? 'ctx-a' : undefined) })).run.id);
    await runs.create(actor('someone-else'), { agent: '@acme/a', message: message('not mine') });
    // The oldest task changes status last: it becomes the most recent.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await eventLog.append(ids[0]!, { type: 'status', final: true, status: { state: 'completed', timestamp: new Date().toISOString() } });

    const first = await runs.listOwned(owner, { pageSize: 5 });
    expect(first.total).toBe(12);
    expect(first.items.map((run) => run.id)).toEqual([ids[0], ...ids.slice(8).reverse()]);
    const second = await runs.listOwned(owner, { pageSize: 5, after: first.next });
    expect(second.items.map((run) => run.id)).toEqual(ids.slice(3, 8).reverse());
    const third = await runs.listOwned(owner, { pageSize: 5, after: second.next });
    expect(third.items.map((run) => run.id)).toEqual(ids.slice(1, 3).reverse());
    expect(third.next).toBeNull();

    expect((await runs.listOwned(owner, { pageSize: 50, state: 'completed' as RunState })).items.map((run) => run.id)).toEqual([ids[0]]);
    const byContext = await runs.listOwned(owner, { pageSize: 50, contextId: 'ctx-a' });
    expect(byContext.total).toBe(4);
    expect(byContext.items.every((run) => run.contextId === 'ctx-a')).toBe(true);
    // Only tasks whose status changed after the given time.
    const since = Date.parse((await runs.head(ids[11]!))!.status.timestamp);
    expect((await runs.listOwned(owner, { pageSize: 50, updatedAfter: since })).items.map((run) => run.id)).toEqual([ids[0]]);
    // The page's runs are read whole (history, artifacts) unless the caller wants neither.
    expect(first.items[0]!.history.length).toBeGreaterThanOrEqual(0);
    expect((await runs.listOwned(owner, { pageSize: 1, whole: false })).items[0]!.tail.seq).toBe(0);
  });

  it('takes only page tokens it handed to the same caller', async () => {
    const { runs } = store();
    const owner = actor('token-owner');
    for (let i = 0; i < 3; i++) await runs.create(owner, { agent: '@acme/a', message: message(`t${i}`) });
    const page = await runs.listOwned(owner, { pageSize: 1 });
    expect(runs.ownsListToken(owner, page.next!)).toBe(true);
    expect(runs.ownsListToken(actor('someone-else'), page.next!)).toBe(false);
    expect(runs.ownsListToken(owner, 'garbage')).toBe(false);
    expect(runs.ownsListToken(owner, `${page.next!.split('.')[0]}.not-a-key`)).toBe(false);
  });

  it('pages the runs page newest run first, optionally by state, agent or caller', async () => {
    const { runs, eventLog } = store();
    await t.db.models.Run.collection.deleteMany({});
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await runs.create(actor(i % 2 ? 'odd' : 'even'), { agent: i < 4 ? '@acme/a' : '@acme/b', message: message(`r${i}`) })).run.id);
    await eventLog.append(made[2]!, { type: 'status', final: true, status: { state: 'failed', timestamp: new Date().toISOString() } });
    const first = await runs.list({ limit: 4 });
    expect(first.items.map((run) => run.id)).toEqual(made.slice(3).reverse());
    expect((await runs.list({ limit: 4, before: first.nextBefore })).items.map((run) => run.id)).toEqual(made.slice(0, 3).reverse());
    expect((await runs.list({ state: 'failed' })).items.map((run) => run.id)).toEqual([made[2]]);
    expect((await runs.list({ agent: '@acme/b' })).items.map((run) => run.id)).toEqual(made.slice(4).reverse());
    expect((await runs.list({ caller: { type: 'a2a', id: 'odd' } })).items.map((run) => run.id)).toEqual([made[5], made[3], made[1]]);
  });

  it('gives a retried request the run its key created, and forgets keys past their expiry', async () => {
    const { runs } = store();
    const owner = actor('retrier');
    const first = await runs.create(owner, { agent: '@acme/a', message: { ...message('once'), id: 'same-message' }, idempotencyKey: 'idem' });
    const again = await Promise.all([
      runs.create(owner, { agent: '@acme/a', message: { ...message('once'), id: 'other-message' }, idempotencyKey: 'idem' }),
      runs.create(owner, { agent: '@acme/a', message: { ...message('once'), id: 'same-message' } }),
    ]);
    expect(again.map((r) => [r.created, r.run.id])).toEqual([[false, first.run.id], [false, first.run.id]]);
    // The retries' own writes were withdrawn: one run, one set of events, one lease.
    expect(await t.db.models.Run.collection.countDocuments({ caller: 'a2a:retrier' })).toBe(1);
    expect(await t.db.models.RunLease.collection.countDocuments({ _id: { $in: [first.run.id] } as never })).toBe(1);
    // The second key of the first retry (its message id) was taken back: a later send with it starts a run.
    expect((await runs.create(owner, { agent: '@acme/a', message: { ...message('new'), id: 'other-message' } })).created).toBe(true);
    await t.db.models.RunKey.collection.updateMany({ runId: first.run.id }, { $set: { expiresAt: new Date(Date.now() - 1) } });
    expect(await runs.forgetExpiredKeys()).toBe(2);
    expect((await runs.create(owner, { agent: '@acme/a', message: { ...message('once'), id: 'same-message' }, idempotencyKey: 'idem' })).created).toBe(true);
  });

  it('tells a run whose keys another run holds (its creator died before withdrawing it) and withdraws it', async () => {
    const { runs } = store();
    const owner = actor('crashed-creator');
    const kept = await runs.create(owner, { agent: '@acme/a', message: { ...message('x'), id: 'dup-message' } });
    // What a creation that lost its key and died leaves behind: a head, events and a lease, no key of its own.
    const leftover = (await runs.create(owner, { agent: '@acme/a', message: message('y') })).run.id;
    await t.db.models.Run.collection.updateOne({ _id: leftover as never }, { $set: { keys: [runKeyId(owner.id, 'message', 'dup-message')] } });
    expect(await runs.isDuplicate(kept.run.id)).toBe(false);
    expect(await runs.isDuplicate(leftover)).toBe(true);
    expect(await runs.head(leftover)).toBeNull();
    expect(await t.db.models.RunEvent.collection.countDocuments({ runId: leftover })).toBe(0);
    expect(await runs.head(kept.run.id)).not.toBeNull();
  });
});
