import type { Services } from '@service/core';
import { installExampleAgents, startInProcessPeer, testServices, useTestDatabase, type InProcessPeer } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../router.server.ts';

const t = useTestDatabase();
const peerDb = useTestDatabase();
let services: Services;
let peer: InProcessPeer;
/** How long the peer takes to check an answer: longer than any short wait a procedure might hope for. */
let answerCheckMs = 0;
const admin = { type: 'ui', id: 'admin-runs', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
  peer = await startInProcessPeer(peerDb.db, {
    scope: '@globex',
    hold: async (body) => {
      if (body.includes('"resume"')) await new Promise((resolve) => setTimeout(resolve, answerCheckMs));
    },
  });
  await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, ...peer.client });
});
afterAll(() => peer?.close());

/** A run started as the runs page starts it, once it waits for an answer. */
async function pausedRun(input: { agent: string; peerId?: string }) {
  const caller = createCaller({ services, actor: admin });
  const { runId } = await caller.runs.start({ ...input, text: 'A draft about two instances. It needs a teaser.' });
  for await (const stored of services.eventLog.follow(runId, 0)) void stored;
  const { run } = await caller.runs.get({ id: runId });
  expect(run.state).toBe('input-required');
  return run;
}

describe('runs procedures', () => {
  it('shows a refused answer on the form however long the peer takes to refuse it', async () => {
    const run = await pausedRun({ agent: '@globex/editorial-review', peerId: 'globex' });
    answerCheckMs = 2_000;
    try {
      const answered = createCaller({ services, actor: admin }).runs.answer({ id: run.id, screenId: 'approve-summary', values: { approved: 'not a boolean' } });
      await expect(answered).rejects.toMatchObject({ code: 'BAD_GATEWAY' });
    } finally {
      answerCheckMs = 0;
    }
    const { run: after } = await createCaller({ services, actor: admin }).runs.get({ id: run.id });
    expect(after).toMatchObject({ state: 'input-required', interrupt: { screenId: 'approve-summary' } });
  });

  it('answers once the peer took the answer, and the run view then follows the rest', async () => {
    const run = await pausedRun({ agent: '@globex/editorial-review', peerId: 'globex' });
    const caller = createCaller({ services, actor: admin });
    const before = (await caller.runs.get({ id: run.id })).events.at(-1)!.seq;
    await expect(caller.runs.answer({ id: run.id, screenId: 'approve-summary', values: { approved: true } })).resolves.toEqual({ ok: true });
    // The answer, then the peer's first event about it: what the page shows when it reloads.
    const { events } = await caller.runs.get({ id: run.id, afterSeq: before });
    expect(events[0]!.event).toMatchObject({ type: 'status', answer: { screenId: 'approve-summary' } });
    expect(events[1]!.event).toMatchObject({ metadata: { remote: { peerId: 'globex' } } });
  });

  it('answers a run of this instance once the answer is stored', async () => {
    const run = await pausedRun({ agent: '@acme/editorial-review' });
    const caller = createCaller({ services, actor: admin });
    await expect(caller.runs.answer({ id: run.id, screenId: 'approve-summary', values: { approved: true } })).resolves.toEqual({ ok: true });
    await expect(caller.runs.answer({ id: run.id, screenId: 'approve-summary', values: { approved: true } })).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('cancels a run bridged from the peer there (CancelTask) and here; a finished run is not cancelable', async () => {
    const run = await pausedRun({ agent: '@globex/editorial-review', peerId: 'globex' });
    const caller = createCaller({ services, actor: admin });
    const remoteTaskId = ((await caller.runs.get({ id: run.id })).events.at(-1)!.event as { metadata?: { remote?: { taskId?: string } } }).metadata!.remote!.taskId!;
    await expect(caller.runs.cancel({ id: run.id })).resolves.toEqual({ state: 'canceled' });
    expect((await peer.services.runs.get(remoteTaskId))!.state).toBe('canceled');
    await expect(caller.runs.cancel({ id: run.id })).rejects.toMatchObject({ code: 'CONFLICT' });
    const local = await pausedRun({ agent: '@acme/editorial-review' });
    await expect(caller.runs.cancel({ id: local.id })).resolves.toEqual({ state: 'canceled' });
  });
});
