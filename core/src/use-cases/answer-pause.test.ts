import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, startInProcessPeer, testServices, useTestDatabase, type InProcessPeer } from '../testing/index.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
const peerDb = useTestDatabase();
let services: Services;
let peer: InProcessPeer;
const admin = { type: 'ui', id: 'admin-answer', email: 'admin@acme.test', role: 'admin' } as const;
const approve = { screenId: 'approve-summary', values: { approved: true, notes: 'Ship it.' } };

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
  peer = await startInProcessPeer(peerDb.db, { scope: '@globex' });
  await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, ...peer.client });
});
afterAll(() => peer?.close());

/** A run of the editorial review, here or on the peer, once it waits for the editor. */
async function pausedRun(peerId?: string) {
  const { run, execution } = await services.useCases.runs.start(admin, { agent: peerId ? '@globex/editorial-review' : '@acme/editorial-review', message: textMessage('A draft. It needs a teaser.'), ...(peerId ? { peerId } : {}) });
  await execution;
  const paused = (await services.runs.get(run.id))!;
  expect(paused.state).toBe('input-required');
  return paused;
}

/** The run once it settles again after the answer at `answerSeq` (its log's follower ends there). */
async function settled(runId: string, answerSeq: number) {
  for await (const stored of services.eventLog.follow(runId, answerSeq)) void stored;
  return (await services.runs.get(runId))!;
}

describe('answering a paused run (the admin UI, A2A and AG-UI alike)', () => {
  it('stores the answer of a run here and goes on: the answer is the event at answerSeq', async () => {
    const paused = await pausedRun();
    const { answerSeq } = await services.useCases.runs.answer(admin, paused.id, approve);
    const stored = (await services.eventLog.readAfter(paused.id, answerSeq - 1))[0]!;
    // Who answered is stored with the answer (the run timeline shows it).
    expect(stored).toMatchObject({ seq: answerSeq, event: { type: 'status', answer: { screenId: 'approve-summary', values: approve.values, by: { type: 'ui', id: admin.id } } } });
    expect((await settled(paused.id, answerSeq)).state).toBe('completed');
  });

  it('takes one answer per pause: a second is CONFLICT', async () => {
    const paused = await pausedRun();
    await services.useCases.runs.answer(admin, paused.id, approve);
    await expect(services.useCases.runs.answer(admin, paused.id, approve)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('shows a run the caller may not see as missing', async () => {
    const paused = await pausedRun();
    const stranger = { type: 'a2a', id: 'oauth:stranger', clientId: 'stranger', grants: { allowedAgents: ['*'] as string[], permissions: ['execute'] as ('list' | 'read' | 'execute')[] } } as const;
    await expect(services.useCases.runs.answer(stranger, paused.id, approve)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await services.runs.get(paused.id))!.state).toBe('input-required');
  });

  it('answers for a run on a peer once the peer took the answer: its first event about it is stored here', async () => {
    const paused = await pausedRun('globex');
    const { answerSeq } = await services.useCases.runs.answer(admin, paused.id, approve);
    expect((await services.eventLog.readAfter(paused.id, answerSeq - 1))[0]!.event).toMatchObject({ answer: { by: { type: 'ui', id: admin.id } } });
    const after = await services.eventLog.readAfter(paused.id, answerSeq);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after[0]!.event).toMatchObject({ metadata: { remote: { peerId: 'globex' } } });
    expect((await settled(paused.id, answerSeq)).state).toBe('completed');
  });

  it('refuses an answer the peer refused, and the run waits for a better one', async () => {
    const paused = await pausedRun('globex');
    await expect(services.useCases.runs.answer(admin, paused.id, { screenId: 'approve-summary', values: { approved: 'not a boolean' } })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    const waiting = (await services.runs.get(paused.id))!;
    expect(waiting).toMatchObject({ state: 'input-required', interrupt: { screenId: 'approve-summary' } });
    const { answerSeq } = await services.useCases.runs.answer(admin, paused.id, approve);
    expect((await settled(paused.id, answerSeq)).state).toBe('completed');
  });
});
