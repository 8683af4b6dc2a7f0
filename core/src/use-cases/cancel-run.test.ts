import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, startInProcessPeer, testServices, useTestDatabase, type InProcessPeer } from '../testing/index.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
const peerDb = useTestDatabase();
let services: Services;
let peer: InProcessPeer;
const admin = { type: 'ui', id: 'admin-cancel', email: 'admin@acme.test', role: 'admin' } as const;
const approve = { screenId: 'approve-summary', values: { approved: true, notes: 'Ship it.' } };

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
  peer = await startInProcessPeer(peerDb.db, { scope: '@globex' });
  await services.peers.register(admin, { id: 'globex', name: 'Globex', baseUrl: peer.url, ...peer.client });
  await services.peers.register(admin, { id: 'globex-legacy', name: 'Globex (0.3)', baseUrl: peer.url, ...peer.client, protocol: '0.3' });
});
afterAll(() => peer?.close());

/** A run of the peer's editorial review once it waits for the editor, with the peer's task id. */
async function pausedRemoteRun(peerId = 'globex') {
  const { run, execution } = await services.useCases.runs.start(admin, { agent: '@globex/editorial-review', message: textMessage('A draft. It needs a teaser.'), peerId });
  await execution;
  const paused = (await services.runs.get(run.id))!;
  expect(paused.state).toBe('input-required');
  const last = (await services.eventLog.readAfter(run.id, 0)).at(-1)!.event as { metadata?: { remote?: { taskId?: string } } };
  return { paused, remoteTaskId: last.metadata!.remote!.taskId! };
}

const peerState = async (taskId: string) => (await peer.services.runs.get(taskId))!.state;

describe('cancelling a run bridged from a peer', () => {
  it.each(['globex', 'globex-legacy'])('sends CancelTask to the peer (%s) and ends both runs canceled', async (peerId) => {
    const { paused, remoteTaskId } = await pausedRemoteRun(peerId);
    const canceled = await services.useCases.runs.cancel(admin, paused.id);
    expect(canceled.state).toBe('canceled');
    expect(await peerState(remoteTaskId)).toBe('canceled');
    await expect(services.useCases.runs.cancel(admin, paused.id)).rejects.toMatchObject({ code: 'TASK_NOT_CANCELABLE' });
  });
});

describe('a peer that cancels a paused task', () => {
  it('is seen when the run is read: the run here ends canceled', async () => {
    const { paused, remoteTaskId } = await pausedRemoteRun();
    await peer.services.executor.cancel(remoteTaskId);
    const { run, events } = await services.useCases.runs.read(admin, paused.id);
    expect(run.state).toBe('canceled');
    expect(events.at(-1)!.event).toMatchObject({ type: 'status', status: { state: 'canceled' } });
  });

  it('refuses an answer then, and the run ends canceled, not failed', async () => {
    const { paused, remoteTaskId } = await pausedRemoteRun();
    await peer.services.executor.cancel(remoteTaskId);
    await expect(services.useCases.runs.answer(admin, paused.id, approve)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/canceled on the peer/) });
    expect((await services.runs.get(paused.id))!.state).toBe('canceled');
  });
});
