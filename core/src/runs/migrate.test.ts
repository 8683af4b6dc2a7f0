import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../log/index.ts';
import { useTestDatabase } from '../testing/index.ts';
import { createEventLog } from './event-log.ts';
import { moveRunsIntoOneCollection } from './migrate.ts';

const t = useTestDatabase();

describe('moving a database from before ADR 0010 into one runs collection', () => {
  it('copies the old events under their new ids, drops the old collections, and does it once', async () => {
    const db = t.db.connection.db!;
    const runId = '0190f5e4-0000-7000-8000-0000000000aa';
    await t.db.models.Run.create({ _id: runId, contextId: 'c', agent: '@acme/a', state: 'completed', lastSeq: 3, actorType: 'a2a', actorId: 'x', input: {}, status: {} });
    await db.collection('run_events').insertMany([1, 2, 3].map((seq) => ({ _id: `${runId}/${String(seq).padStart(12, '0')}` as never, runId, seq, kind: 'status-update', payload: { kind: 'status-update', seq }, at: new Date() })));
    await db.collection('run_leases').insertOne({ _id: runId as never, owner: null, until: null, generation: 1 });
    await db.collection('run_idempotency').insertOne({ _id: 'old\u0000message\u0000m' as never, runId });

    const logger = createMemoryLogger();
    expect(await moveRunsIntoOneCollection(t.db.models, logger)).toBe(3);
    const events = await createEventLog(t.db.models).readAfter(runId, 1);
    expect(events.map((e) => e.seq)).toEqual([2, 3]);
    const left = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(left).not.toContain('run_events');
    expect(left).not.toContain('run_leases');
    expect(left).not.toContain('run_idempotency');
    expect(await moveRunsIntoOneCollection(t.db.models, logger)).toBe(0);
  });
});
