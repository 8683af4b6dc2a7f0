import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { compileSource, loadExample } from '../agents/index.ts';
import { createExtensionWriter } from '../extensions/index.ts';
import { DEFAULT_AGENT_SETTING } from '../settings/index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-default', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

describe('the default agent of A2A messages that name none', () => {
  it('is the first agent recorded here, with no admin step: a generic A2A send naming no agent works', async () => {
    expect(await services.useCases.defaultAgent.get()).toEqual({ agent: '@acme/summarizer', agents: expect.arrayContaining(['@acme/summarizer', '@acme/editorial-review']) });
    const admitted = await services.oauth.clients.register(admin, { name: 'generic', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
    const token = (await services.oauth.tokens.issue(admitted.client)).access_token;
    process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
    const response = await services.handlers.a2a(
      new Request('http://127.0.0.1:3999/api/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: `generic-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'No agent named. Fine.' }] } } }),
      }),
    );
    expect(((await response.json()) as any).result.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, metadata: { agent: '@acme/summarizer' } });
  });

  it('is set by a publish too, and an admin\'s choice (none included) stays when more agents arrive', async () => {
    await t.db.models.Setting.deleteOne({ _id: DEFAULT_AGENT_SETTING });
    const writer = createExtensionWriter(t.db.models);
    const source = loadExample('editorial-review', '@acme');
    const compiled = compileSource(source);
    const origin = { packageName: compiled.packageName, version: compiled.version, destinationId: null, scope: '@acme', visibility: 'public' as const, registryUrl: 'http://registry.invalid/' };
    const draft = await writer.upsertAuthored(source, compiled, origin);
    expect(await t.db.models.Setting.findById(DEFAULT_AGENT_SETTING).lean()).toBeNull();
    await writer.markPublished(draft.id, { version: compiled.version, source, compiled, origin });
    expect((await t.db.models.Setting.findById(DEFAULT_AGENT_SETTING).lean())?.value).toBe('@acme/editorial-review');

    expect(await services.useCases.defaultAgent.set(admin, null)).toEqual({ agent: null });
    await installExampleAgents(t.db, '@acme', ['summarizer']);
    expect((await services.useCases.defaultAgent.get()).agent).toBeNull();
    expect(await services.useCases.defaultAgent.set(admin, '@acme/summarizer')).toEqual({ agent: '@acme/summarizer' });
    expect((await services.useCases.defaultAgent.get()).agent).toBe('@acme/summarizer');
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
