import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, startInProcessPeer, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
const peerDb = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-start', email: 'admin@acme.test', role: 'admin' } as const;
const client = (allowedAgents: string[]) => ({ type: 'a2a', id: `client-${allowedAgents.join('+')}`, clientId: 'c', grants: { allowedAgents, permissions: ['list', 'read', 'execute'] as ('list' | 'read' | 'execute')[] } }) as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

const eventTypes = async (runId: string) => (await services.eventLog.readAfter(runId, 0)).map(({ event }) => (event.type === 'status' ? `status:${event.status.state}` : event.type));

describe('starting a run (the admin UI and A2A alike)', () => {
  it('stores the run already working and runs it here to its end', async () => {
    const { run, created, execution } = await services.useCases.runs.start(admin, { agent: '@acme/summarizer', message: textMessage('Start me. Then finish.') });
    expect(created).toBe(true);
    expect(run).toMatchObject({ agent: '@acme/summarizer', state: 'working', actorType: 'ui', actorId: admin.id, remote: null });
    expect((await execution)?.state).toBe('completed');
    expect((await eventTypes(run.id)).slice(0, 2)).toEqual(['created', 'status:working']);
  });

  it('gives a retry with the same Idempotency-Key the run it started, and starts nothing', async () => {
    const caller = client(['*']);
    const first = await services.useCases.runs.start(caller, { agent: '@acme/summarizer', message: textMessage('Once. Only once.'), idempotencyKey: 'key-1' });
    await first.execution;
    const again = await services.useCases.runs.start(caller, { agent: '@acme/summarizer', message: textMessage('Once. Only once.'), idempotencyKey: 'key-1' });
    expect(again).toMatchObject({ created: false, execution: null, run: { id: first.run.id } });
  });

  it('refuses a caller without the grant for the agent, and stores nothing', async () => {
    const before = await t.db.models.Run.countDocuments({});
    await expect(services.useCases.runs.start(client(['@acme/editorial-review']), { agent: '@acme/summarizer', message: textMessage('Not yours.') })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await t.db.models.Run.countDocuments({})).toBe(before);
  });

  it('answers NOT_FOUND for an agent not published here', async () => {
    await expect(services.useCases.runs.start(admin, { agent: '@acme/nobody', message: textMessage('Anyone?') })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'No agent @acme/nobody on this host' });
  });

  it('runs an agent on a registered peer as a local run that follows the peer', async () => {
    const peer = await startInProcessPeer(peerDb.db, { scope: '@globex' });
    try {
      await services.peers.register(admin, { id: 'globex-start', name: 'Globex', baseUrl: peer.url, ...peer.client });
      const { run, execution } = await services.useCases.runs.start(admin, { agent: '@globex/summarizer', message: textMessage('Far away. Still here.'), peerId: 'globex-start' });
      expect(run.remote).toEqual({ peerId: 'globex-start', skillId: '@globex/summarizer' });
      expect((await execution)?.state).toBe('completed');
      expect(await peerDb.db.models.Run.countDocuments({ agent: '@globex/summarizer', state: 'completed' })).toBe(1);
    } finally {
      await peer.close();
    }
  });

  it('lets only an admin spend this instance’s peers', async () => {
    await expect(services.useCases.runs.start(client(['*']), { agent: '@globex/summarizer', message: textMessage('Through you.'), peerId: 'globex-start' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
