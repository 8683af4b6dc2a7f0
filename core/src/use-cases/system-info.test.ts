import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from './start-run.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-info', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

describe('the Overview', () => {
  it('says who this instance is, how it is set up, and counts what happened today', async () => {
    const { execution } = await services.useCases.runs.start(admin, { agent: '@acme/summarizer', message: textMessage('Count me. Once.') });
    await execution;
    await services.featureFlags.set(admin, 'a2aHttpEnabled', true);
    const info = await services.useCases.systemInfo(admin);
    expect(info).toMatchObject({
      productName: 'Acme Agents',
      vendorScope: '@acme',
      version: services.version,
      mode: 'test',
      database: services.databaseServer,
      flags: { a2aHttpEnabled: true },
      registry: { routingMode: null },
      agents: expect.arrayContaining(['@acme/summarizer', '@acme/editorial-review']),
      defaultAgent: '@acme/summarizer',
      status: { runsLastDay: 1, failedLastDay: 0, clients: 0, connectorInstances: 0, widgetKeys: 0 },
      llm: { provider: services.llm.name, model: services.llm.model },
    });
  });

  it('is for admins only', async () => {
    await expect(services.useCases.systemInfo({ type: 'ui', id: 'm', email: 'm@acme.test', role: 'member' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
