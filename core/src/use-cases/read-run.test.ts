import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';
import { TIMELINE_PAGE, type RunFeedItem } from './read-run.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-read', email: 'admin@acme.test', role: 'admin' } as const;
const owner = { type: 'a2a', id: 'oauth:owner', clientId: 'owner', grants: { allowedAgents: ['*'] as string[], permissions: ['list', 'read', 'execute'] as ('list' | 'read' | 'execute')[] } } as const;
const stranger = { ...owner, id: 'oauth:stranger', clientId: 'stranger' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

/** An editorial review of `owner`, paused for the editor after its summary step. */
async function pausedRun() {
  const { run, execution } = await services.useCases.runs.start(owner, { agent: '@acme/editorial-review', message: textMessage('A draft. Read me.') });
  await execution;
  return run;
}

async function collect(feed: AsyncIterable<RunFeedItem>) {
  const items: RunFeedItem[] = [];
  for await (const item of feed) items.push(item);
  return items;
}

describe('reading and following a run', () => {
  it('shows the run with the events people see: no step outputs, no executor position', async () => {
    const run = await pausedRun();
    const stored = (await services.eventLog.readAfter(run.id, 0)).map(({ event }) => event.type);
    expect(stored).toContain('step');
    const { run: shown, remote, events } = await services.useCases.runs.read(admin, run.id);
    expect(shown).toMatchObject({ id: run.id, state: 'input-required', interrupt: { screenId: 'approve-summary' } });
    expect(shown).not.toHaveProperty('progress');
    expect(shown).not.toHaveProperty('tail');
    expect(remote).toBe(false);
    expect(events.map(({ event }) => event.type)).toEqual(stored.filter((type) => type !== 'step' && type !== 'progress'));
    expect((await services.useCases.runs.read(admin, run.id, events.at(-1)!.seq)).events).toEqual([]);
  });

  it('follows a run: the events after a point as they come, then the state it settled in', async () => {
    const run = await pausedRun();
    const feed = await services.useCases.runs.follow(owner, run.id);
    const items = await collect(feed.from(0, new AbortController().signal));
    expect(items.at(-1)).toEqual({ settled: 'input-required' });
    const events = items.slice(0, -1) as { seq: number; event: { type: string } }[];
    expect(events.map(({ event }) => event.type)).not.toContain('step');
    expect(events.at(-1)!.event).toMatchObject({ type: 'status', interrupt: { screenId: 'approve-summary' } });
    const after = await collect(feed.from(events.at(-1)!.seq, new AbortController().signal));
    expect(after).toEqual([{ settled: 'input-required' }]);
  });

  it('shows someone else’s run as missing, to read and to follow', async () => {
    const run = await pausedRun();
    await expect(services.useCases.runs.read(stranger, run.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.useCases.runs.follow(stranger, run.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(services.useCases.runs.read(admin, 'no-such-run')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('shows a run page: the timeline with its steps and pause, the caller by name, someone else’s run as missing', async () => {
    const run = await pausedRun();
    const { timeline, events, page } = await services.useCases.runs.timeline(admin, run.id);
    expect(page).toEqual({ afterSeq: 0, nextAfter: null });
    expect(timeline.startedBy).toMatchObject({ kind: 'A2A client', raw: 'a2a:oauth:owner' });
    expect(timeline.entries.map((entry) => entry.type)).toContain('step');
    expect(timeline.entries.at(-1)).toMatchObject({ type: 'pause', screenId: 'approve-summary', answer: null });
    expect(events.map(({ event }) => event.type)).not.toContain('step');
    await expect(services.useCases.runs.timeline(stranger, run.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads a long log a page at a time: the page after a point, and where the next one starts', async () => {
    const { run } = await services.runs.create(owner, { agent: '@acme/editorial-review', message: textMessage('Chatty.'), working: true });
    // Messages a peer might stream: visible events, appended as the bridge appends them.
    await services.eventLog.appendAll(run.id, Array.from({ length: TIMELINE_PAGE + 10 }, (_, i) => ({ type: 'message' as const, message: { id: `m${i}`, role: 'agent' as const, parts: [{ type: 'text' as const, text: `line ${i}` }] } })));
    const first = await services.useCases.runs.timeline(admin, run.id);
    expect(first.events).toHaveLength(TIMELINE_PAGE);
    expect(first.page).toEqual({ afterSeq: 0, nextAfter: TIMELINE_PAGE });
    const second = await services.useCases.runs.timeline(admin, run.id, TIMELINE_PAGE);
    expect(second.events.map(({ seq }) => seq)).toEqual(Array.from({ length: 12 }, (_, i) => TIMELINE_PAGE + 1 + i));
    expect(second.page).toEqual({ afterSeq: TIMELINE_PAGE, nextAfter: null });
  });
});
