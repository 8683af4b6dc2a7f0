import { beforeAll, describe, expect, it } from 'vitest';
import { runEventsAfter } from '../db/index.ts';
import { createScriptedProvider } from '../llm/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { createServices, type Services } from '../index.ts';
import { installExampleAgents, installFlowAgent, testConfig, useTestDatabase } from '../testing/index.ts';
import { createExtensionReader } from '../extensions/index.ts';
import { createEventLog } from './event-log.ts';
import { createRunExecutor } from './executor.ts';
import { createRunLeases } from './leases.ts';
import { createRunStore } from './run-store.ts';
import { buildRunTimeline } from './run-timeline.ts';
import type { RunEvent, RunMessage } from './model.ts';

/**
 * Usage accounting through the run engine (ADR 0040): every step stored with its timing and LLM
 * calls (the last one with the answer, in the same insert), the run head's usage moved forward
 * as steps are stored, calls priced from the operator's table, and each run end counted once
 * toward the daily totals per agent and per caller.
 */
const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const client = { type: 'a2a', id: 'usage-client', clientId: 'c', grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] } } as never;
const message = (text: string): RunMessage => ({ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }] });

async function storedEvents(runId: string) {
  const rows = await t.db.models.RunEvent.find({ _id: runEventsAfter(runId, 0) }).sort({ _id: 1 }).lean();
  return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as RunEvent }));
}

async function settled(runId: string, states = ['completed', 'failed', 'canceled', 'input-required']) {
  for (let i = 0; i < 400; i++) {
    const run = await services.runs.get(runId);
    if (run && states.includes(run.state)) return run;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`run ${runId} did not settle`);
}

const headOf = (runId: string) => t.db.models.Run.collection.findOne({ _id: runId as never });

beforeAll(async () => {
  services = createServices({ config: testConfig({ SERVICE_VENDOR_SCOPE: '@acme' }), logger: createMemoryLogger(), database: t.db, llm: createScriptedProvider({ usage: { inputTokens: 1_000, outputTokens: 200 } }) });
  await installExampleAgents(t.db, '@acme', ['summarizer', 'editorial-review']);
  await services.prices.set(admin as never, [{ model: 'scripted-v1', inputPerMillion: 3, outputPerMillion: 15 }]);
});

describe('a run’s steps and usage', () => {
  it('stores the last step with the answer and the completed status in one insert, with its timing, attempts and priced calls', async () => {
    const appended: string[][] = [];
    const appendAll = services.eventLog.appendAll.bind(services.eventLog);
    services.eventLog.appendAll = ((runId, events, options) => {
      appended.push(events.map((event) => event.type));
      return appendAll(runId, events, options);
    }) as typeof appendAll;
    try {
      const { run } = await services.runs.create(client, { agent: '@acme/summarizer', message: message('Summarize this.'), working: true });
      const done = await services.executor.start(run.id, run);
      expect(done?.state).toBe('completed');
      expect(appended.at(-1)).toEqual(['artifact', 'status', 'step']);
      const steps = (await storedEvents(run.id)).map((e) => e.event).filter((e) => e.type === 'step');
      expect(steps).toEqual([
        {
          type: 'step', index: 0, stepId: 'summarize', output: expect.any(String), kind: 'llm', startedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), durationMs: expect.any(Number), attempts: 1,
          // 1 000 × $3 + 200 × $15 per million tokens.
          calls: [{ provider: 'scripted', model: 'scripted-v1', inputTokens: 1_000, outputTokens: 200, durationMs: expect.any(Number), costUsd: 0.006 }],
        },
      ]);
      const usage = { calls: 1, inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 };
      expect((await headOf(run.id))?.usage).toEqual(usage);
      const read = await services.runs.get(run.id);
      expect(read).toMatchObject({ state: 'completed', usage, progress: { stepIndex: 1 } });
      // A completed run whose last step is stored is never run again.
      await t.db.models.RunLease.collection.updateOne({ _id: run.id as never }, { $set: { renewedAt: new Date(0) } });
      expect(await services.executor.recoverOrphans()).not.toContain(run.id);
      expect((await storedEvents(run.id)).filter((e) => e.event.type === 'artifact')).toHaveLength(1);
    } finally {
      services.eventLog.appendAll = appendAll;
    }
  });

  it('records a sub-agent’s LLM calls on the calling step, keeps the head’s usage current across a pause, and completes from the stored steps', async () => {
    const { run } = await services.runs.create(client, { agent: '@acme/editorial-review', message: message('A draft about usage.'), working: true });
    await services.executor.start(run.id, run);
    const paused = await settled(run.id);
    expect(paused.state).toBe('input-required');
    const call = (await storedEvents(run.id)).map((e) => e.event).find((e) => e.type === 'step' && e.stepId === 'summary');
    expect(call).toMatchObject({ kind: 'call', attempts: 1, calls: [{ provider: 'scripted', inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 }] });
    await expect.poll(async () => (await headOf(run.id))?.usage).toEqual({ calls: 1, inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 });

    await services.executor.resume(run.id, { screenId: 'approve-summary', values: { approved: true, notes: 'ok' } });
    const done = await settled(run.id, ['completed', 'failed']);
    expect(done).toMatchObject({ state: 'completed', usage: { calls: 2, inputTokens: 2_000, outputTokens: 400, costUsd: 0.012 }, progress: { stepIndex: 4 } });
    // The reply for an unapproved summary is skipped (stored as such, with no calls); the teaser runs.
    const steps = (await storedEvents(run.id)).map((e) => e.event).filter((e) => e.type === 'step');
    expect(steps.map((s) => s.type === 'step' && [s.stepId, s.kind])).toEqual([['summary', 'call'], ['not-approved', 'reply'], ['teaser', 'llm']]);
    // The head is moved forward right after the log (which the wait above read).
    await expect.poll(async () => (await headOf(run.id))?.usage).toEqual({ calls: 2, inputTokens: 2_000, outputTokens: 400, costUsd: 0.012 });
  });

  it('counts each run end once toward the day’s totals per agent and per caller', async () => {
    const { run } = await services.runs.create(client, { agent: '@acme/summarizer', message: message('Count me.'), working: true });
    await services.executor.start(run.id, run);
    const day = new Date().toISOString().slice(0, 10);
    const agentRow = async () => (await services.usageRollups.totals('agent', day, day)).find((total) => total.key === '@acme/summarizer');
    await expect.poll(agentRow).toMatchObject({ runs: 2 });
    // The same end told again (a retry of the count) changes nothing.
    await services.usageRollups.runEnded(run.id, { calls: 1, inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 });
    expect(await agentRow()).toEqual({ day, key: '@acme/summarizer', runs: 2, calls: 2, inputTokens: 2_000, outputTokens: 400, costUsd: 0.012 });
    await expect.poll(() => services.usageRollups.totals('caller', day, day)).toEqual([{ day, key: 'a2a:usage-client', runs: 3, calls: 4, inputTokens: 4_000, outputTokens: 800, costUsd: 0.024 }]);
    // Another day's page has none of it.
    expect(await services.usageRollups.totals('agent', '2001-01-01', '2001-01-31')).toEqual([]);
  });

  it('ends a canceled run with its usage on the canceled status, and counts it', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const counted = async () => (await services.usageRollups.totals('agent', day, day)).find((total) => total.key === '@acme/editorial-review');
    const before = await counted();
    const { run } = await services.runs.create(client, { agent: '@acme/editorial-review', message: message('Cancel me after the summary.'), working: true });
    await services.executor.start(run.id, run);
    expect((await settled(run.id)).state).toBe('input-required');
    await services.executor.cancel(run.id);
    const ending = (await storedEvents(run.id)).map((e) => e.event).findLast((e) => e.type === 'status');
    expect(ending).toMatchObject({ status: { state: 'canceled' }, metadata: { usage: { calls: 1, inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 } } });
    await expect.poll(counted).toMatchObject({ runs: (before?.runs ?? 0) + 1, calls: (before?.calls ?? 0) + 1 });
  });

  it('ends a failed run with the usage of the steps that ran, the failing step’s calls included, and counts it', async () => {
    // `@acme/fails-late` summarizes (one call), then calls `@acme/half`, which makes one call and then calls an agent installed nowhere.
    await installFlowAgent(t.db, '@acme', '@acme/half', [{ kind: 'llm', id: 'draft', prompt: '{{input}}' }, { kind: 'call', id: 'missing', agent: '@acme/not-installed', input: '{{input}}' }], ['@acme/not-installed']);
    await installFlowAgent(t.db, '@acme', '@acme/fails-late', [{ kind: 'llm', id: 'summarize', prompt: '{{input}}' }, { kind: 'call', id: 'half', agent: '@acme/half', input: '{{input}}' }], ['@acme/half']);
    const { run } = await services.runs.create(client, { agent: '@acme/fails-late', message: message('Fail after two calls.'), working: true });
    await services.executor.start(run.id, run);
    expect((await settled(run.id)).state).toBe('failed');
    const usage = { calls: 2, inputTokens: 2_000, outputTokens: 400, costUsd: 0.012 };
    const stored = await storedEvents(run.id);
    // The failed status carries the total; the failing step's record, after it, keeps the call it made and moves nothing.
    expect(stored.at(-2)?.event).toMatchObject({ type: 'status', status: { state: 'failed', message: { parts: [{ text: expect.stringMatching(/not-installed/) }] } }, metadata: { usage } });
    expect(stored.at(-1)?.event).toMatchObject({ type: 'step', index: 1, stepId: 'half', kind: 'call', failed: true, output: null, attempts: 1, calls: [{ provider: 'scripted', inputTokens: 1_000, outputTokens: 200, costUsd: 0.006 }] });
    await expect.poll(async () => (await headOf(run.id))?.usage).toEqual(usage);
    // A reader of the log gets the head's total, and the run's position stays at the failed step.
    expect(await services.runs.get(run.id)).toMatchObject({ state: 'failed', usage, progress: { stepIndex: 1 } });
    const timeline = buildRunTimeline((await services.runs.get(run.id))!, await services.eventLog.readAfter(run.id, 0));
    expect(timeline.entries.filter((entry) => entry.type === 'step').map((entry) => entry.type === 'step' && [entry.stepId, entry.status])).toEqual([['summarize', 'done'], ['half', 'failed']]);
    expect(timeline.entries.at(-1)).toMatchObject({ type: 'status', state: 'failed' });
    const day = new Date().toISOString().slice(0, 10);
    await expect.poll(async () => (await services.usageRollups.totals('agent', day, day)).find((total) => total.key === '@acme/fails-late')).toEqual({ day, key: '@acme/fails-late', runs: 1, ...usage });
  });

  it('names the peer task that answered a call step', async () => {
    await installFlowAgent(t.db, '@acme', '@acme/caller', [{ kind: 'call', id: 'ask-peer', agent: '@globex/far-away', input: '{{input}}' }], ['@globex/far-away']);
    const leases = createRunLeases(t.db.models, { profile: t.db.profile, serverTime: t.db.serverTime });
    const eventLog = createEventLog(t.db.models, { finished: leases.finished });
    const runs = createRunStore({ models: t.db.models, eventLog, leases });
    const executor = createRunExecutor({
      runs,
      eventLog,
      extensions: createExtensionReader(t.db.models, testConfig({ SERVICE_VENDOR_SCOPE: '@acme' }).identity),
      llm: createScriptedProvider(),
      logger: createMemoryLogger(),
      leases,
      remoteAgent: async (_agent, input) => ({ output: `peer: ${input}`, remote: { peerId: 'globex', taskId: 'task-on-globex' } }),
    });
    const { run } = await runs.create(client, { agent: '@acme/caller', message: message('Ask the peer.'), working: true });
    expect((await executor.start(run.id, run))?.state).toBe('completed');
    const step = (await storedEvents(run.id)).map((e) => e.event).find((e) => e.type === 'step');
    expect(step).toMatchObject({ kind: 'call', output: 'peer: Ask the peer.', remote: { peerId: 'globex', taskId: 'task-on-globex' }, calls: [] });
  });
});
