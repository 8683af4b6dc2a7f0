import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../testing/index.ts';
import { createUsageRollups } from './rollups.ts';

const t = useTestDatabase();
const DAY_MS = 86_400_000;

/** A run head as the run store writes its `agent` and `caller`. */
async function head(runId: string, agent: string, caller: string) {
  await t.db.models.Run.collection.insertOne({ _id: runId as never, agent, caller });
}

describe('usage totals', () => {
  it('fold a day closed for more than a day into one document, drop its run rows, and read the same totals after', async () => {
    const today = new Date();
    const day = (offset: number) => new Date(today.getTime() - offset * DAY_MS).toISOString().slice(0, 10);
    const at = (offset: number) => createUsageRollups({ models: t.db.models, now: () => new Date(today.getTime() - offset * DAY_MS) });
    const usage = (calls: number) => ({ calls, inputTokens: calls * 100, outputTokens: calls * 10, costUsd: calls / 100 });
    await head('r1', '@acme/a', 'a2a:one');
    await head('r2', '@acme/a', 'a2a:two');
    await head('r3', '@acme/b', 'a2a:one');
    await head('r4', '@acme/a', 'a2a:one');
    await at(3).runEnded('r1', usage(1));
    await at(3).runEnded('r2', usage(2));
    await at(3).runEnded('r3', usage(4));
    // Yesterday is not closed for a day yet, so it stays as run rows.
    await at(1).runEnded('r4', usage(8));

    const reader = at(0);
    const expected = [
      { day: day(1), key: '@acme/a', runs: 1, calls: 8, inputTokens: 800, outputTokens: 80, costUsd: 0.08 },
      { day: day(3), key: '@acme/a', runs: 2, calls: 3, inputTokens: 300, outputTokens: 30, costUsd: 0.03 },
      { day: day(3), key: '@acme/b', runs: 1, calls: 4, inputTokens: 400, outputTokens: 40, costUsd: 0.04 },
    ];
    expect(await reader.totals('agent', day(6), day(0))).toEqual(expected);
    const ids = async () => (await t.db.models.UsageRow.collection.find({}, { projection: { _id: 1 } }).toArray()).map((row) => String(row._id).replace(/\/[0-9a-f]{24}$/, '/<run>'));
    expect((await ids()).filter((id) => id.startsWith('agent/') || id.startsWith('day/agent/')).sort()).toEqual([`agent/${day(1)}/@acme/a/<run>`, `day/agent/${day(3)}`]);
    expect(await reader.totals('agent', day(6), day(0))).toEqual(expected);
    // The caller dimension folds on its own read.
    expect(await reader.totals('caller', day(3), day(3))).toEqual([
      { day: day(3), key: 'a2a:one', runs: 2, calls: 5, inputTokens: 500, outputTokens: 50, costUsd: 0.05 },
      { day: day(3), key: 'a2a:two', runs: 1, calls: 2, inputTokens: 200, outputTokens: 20, costUsd: 0.02 },
    ]);

    // A count arriving for a folded day (a clock a day off) is not added to it, and is cleaned away.
    await head('r5', '@acme/a', 'a2a:one');
    await at(3).runEnded('r5', usage(16));
    expect(await reader.totals('agent', day(3), day(3))).toEqual(expected.slice(1));
    expect((await ids()).filter((id) => id.startsWith(`agent/${day(3)}`))).toEqual([]);
  });
});
