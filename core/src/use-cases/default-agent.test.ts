import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-default', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

describe('the default agent of A2A messages that name none', () => {
  it('starts unset, offers the published agents, and takes one of them', async () => {
    expect(await services.useCases.defaultAgent.get()).toEqual({ agent: null, agents: expect.arrayContaining(['@acme/summarizer', '@acme/editorial-review']) });
    expect(await services.useCases.defaultAgent.set(admin, '@acme/summarizer')).toEqual({ agent: '@acme/summarizer' });
    expect((await services.useCases.defaultAgent.get()).agent).toBe('@acme/summarizer');
    expect(await services.useCases.defaultAgent.set(admin, null)).toEqual({ agent: null });
    expect((await services.useCases.defaultAgent.get()).agent).toBeNull();
  });

  it('refuses an agent not published here, and keeps the choice', async () => {
    await services.useCases.defaultAgent.set(admin, '@acme/editorial-review');
    await expect(services.useCases.defaultAgent.set(admin, '@acme/nobody')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await services.useCases.defaultAgent.get()).agent).toBe('@acme/editorial-review');
  });

  it('lets only an admin choose', async () => {
    await expect(services.useCases.defaultAgent.set({ type: 'ui', id: 'm', email: 'm@acme.test', role: 'member' }, null)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
