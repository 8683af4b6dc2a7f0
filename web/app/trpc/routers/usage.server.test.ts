import type { Services } from '@service/core';
import { installExampleAgents, testServices, useTestDatabase } from '@service/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCaller } from '../router.server.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-usage', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

describe('usage procedures', () => {
  it('store the price table an admin sets (and refuse a model priced twice), and answer the totals of a page of days', async () => {
    const caller = createCaller({ services, actor: admin });
    expect(await caller.usage.prices()).toEqual([]);
    await caller.usage.setPrices([{ model: 'gpt-4o-mini', inputPerMillion: 0.15, outputPerMillion: 0.6 }]);
    expect(await caller.usage.prices()).toEqual([{ model: 'gpt-4o-mini', inputPerMillion: 0.15, outputPerMillion: 0.6 }]);
    await expect(caller.usage.setPrices([{ model: 'a', inputPerMillion: 1, outputPerMillion: 1 }, { model: 'a', inputPerMillion: 2, outputPerMillion: 2 }])).rejects.toThrow(/priced twice/);
    await expect(caller.usage.setPrices([{ model: 'a', inputPerMillion: -1, outputPerMillion: 1 }])).rejects.toThrow();
    await services.audit.flush(); // audit.record is fire-and-forget
    expect((await services.audit.list({ limit: 10, cursor: null, filter: { action: 'settings.update' } })).items.map((row) => row.resourceId)).toContain('llm.prices');

    const { run } = await services.runs.create(admin as never, { agent: '@acme/summarizer', message: { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'Hi.' }] }, working: true });
    await services.eventLog.appendAll(run.id, [{ type: 'status', status: { state: 'completed', timestamp: new Date().toISOString() }, final: true }], { fence: 0, usage: { calls: 3, inputTokens: 30, outputTokens: 6, costUsd: 0.5 } });
    const day = new Date().toISOString().slice(0, 10);
    await expect.poll(() => caller.usage.totals({ dimension: 'caller', from: day, to: day })).toEqual([{ day, key: 'ui:admin-usage', runs: 1, calls: 3, inputTokens: 30, outputTokens: 6, costUsd: 0.5 }]);
    await expect(caller.usage.totals({ dimension: 'agent', from: '2026-01-01', to: '2026-12-31' })).rejects.toThrow(/At most 92 days/);
  });

  it('are an admin’s only', async () => {
    const viewer = createCaller({ services, actor: { type: 'ui', id: 'v', email: 'v@acme.test', role: 'viewer' } as never });
    await expect(viewer.usage.prices()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(viewer.usage.setPrices([])).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
