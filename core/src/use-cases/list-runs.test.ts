import { beforeAll, describe, expect, it } from 'vitest';
import { systemActor } from '../auth/index.ts';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
let services: Services;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

describe('the runs page: every run, with who started it by name', () => {
  it('names an admin by email and an A2A client by its name; others have no name', async () => {
    const admin = await services.users.create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
    const { client } = await services.oauth.clients.register(admin, { name: 'Partner site', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
    const caller = { type: 'a2a', id: `oauth:${client.clientId}`, clientId: client.clientId, grants: { allowedAgents: ['*'], permissions: ['execute'] } } as const;
    for (const actor of [admin, caller, systemActor('sweep')]) await services.runs.create(actor, { agent: '@acme/summarizer', message: textMessage(`by ${actor.type}`) });

    const page = await services.useCases.runs.list(admin, { limit: 10 });
    expect(page.items.map((run) => [run.actorType, run.actorName])).toEqual([
      ['worker', null],
      ['a2a', 'Partner site'],
      ['ui', 'ops@acme.test'],
    ]);
    const byClient = await services.useCases.runs.list(admin, { caller: { type: 'a2a', id: caller.id } });
    expect(byClient.items.map((run) => run.actorName)).toEqual(['Partner site']);
  });

  it('is for admins only: an A2A client lists its own runs over A2A', async () => {
    const member = { type: 'ui', id: 'm1', email: 'm@acme.test', role: 'member' } as const;
    await expect(services.useCases.runs.list(member)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(services.useCases.runs.list({ type: 'a2a', id: 'oauth:x', clientId: 'x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
