import { describe, expect, it } from 'vitest';
import { runListId, runOwnerDigest } from '../db/index.ts';
import { uuidv7 } from '../ids/index.ts';
import { testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
const actor = { type: 'a2a', id: 'oauth:deep' } as never;

describe('a client\'s task list past the counted rows', () => {
  it('pages through 2 600 tasks (3 467 rows, superseded ones among them) in full pages, each task once, newest first, and drops no current row', async () => {
    const owner = runOwnerDigest('a2a', 'oauth:deep');
    const ids: string[] = [];
    const docs: unknown[] = [];
    const start = Date.now() - 3_000_000;
    for (let i = 0; i < 2600; i++) {
      const at = start + i * 1000;
      const id = uuidv7(at);
      ids.push(id);
      docs.push({ _id: id, contextId: 'c', agent: '@a/b', state: 'completed', lastSeq: 2, actorType: 'a2a', actorId: 'oauth:deep', input: '{}', status: JSON.stringify({ state: 'completed', timestamp: new Date(at).toISOString() }), artifacts: [], history: [], progress: '{}' });
      docs.push({ _id: runListId(owner, at, id, 2), runId: id, contextId: 'c', state: 'completed' });
      // Every third run still has the row of its earlier status.
      if (i % 3 === 0) docs.push({ _id: runListId(owner, at - 500, id, 1), runId: id, contextId: 'c', state: 'working' });
    }
    await t.db.models.Run.collection.insertMany(docs as never[]);
    const runs = testServices(t.db).runs;
    const newestFirst = [...ids].reverse();

    const walk = async () => {
      const seen: string[] = [];
      const sizes: number[] = [];
      let after: string | null = null;
      for (let pages = 0; pages < 40; pages++) {
        const page: Awaited<ReturnType<typeof runs.listOwned>> = await runs.listOwned(actor, { pageSize: 100, after });
        seen.push(...page.items.map((run) => run.id));
        sizes.push(page.items.length);
        if (!page.next) break;
        after = page.next;
      }
      return { seen, sizes };
    };
    const first = await walk();
    expect(first.seen).toEqual(newestFirst);
    expect(first.sizes).toEqual(Array(26).fill(100));
    // Superseded rows were dropped in passing, never a current one: a second walk sees the same.
    expect((await walk()).seen).toEqual(newestFirst);
  }, 120_000);
});
