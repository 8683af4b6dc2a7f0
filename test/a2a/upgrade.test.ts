import { createUserStore } from '@service/core/auth';
import { runsLayout1, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

/**
 * A database written by the previous version (the run layout of ADR 0010, as that engine stored
 * seven runs: core/src/migrations/fixtures) opened by this one: the service converts it while it
 * starts, shows every run as before, and continues the run whose worker died.
 */
const fixture = runsLayout1();
const ids = fixture.runIds;
const t = useTestDatabase();
let service: RunningService;
let cookie: string;

type Shown = { run: { state: string; interrupt: { screenId: string } | null; artifacts: { parts: { type: string; text?: string }[] }[]; history: { role: string }[] }; events: { seq: number; event: { type: string } }[] };
const shown = (id: string) => trpcCall<Shown>(service.url, cookie, 'runs.get', { id, afterSeq: 0 }, 'query');

beforeAll(async () => {
  await t.db.connection.db!.collection('runs').insertMany(fixture.runs as never[]);
  await installExampleAgents(t.db, '@acme', ['summarizer', 'editorial-review']);
  await createUserStore(t.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  service = await startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme' } });
  cookie = await signInCookie(service.url, 'ops@acme.test', 'correct horse battery');
});
afterAll(async () => {
  await service?.stop();
});

describe('upgrading a database of the previous version', () => {
  it('converts the stored runs while it starts and shows each as before', async () => {
    expect(service.output()).toContain('converted 7 run(s) to the run model');
    const completed = await shown(ids.completed);
    expect(completed.run.state).toBe('completed');
    expect(completed.run.artifacts[0]!.parts[0]).toEqual({ type: 'text', text: '[scripted] Summarize: Summarize: cats.' });
    expect(completed.events.map((e) => e.event.type)).toEqual(['created', 'status', 'artifact', 'status']);
    const paused = await shown(ids.paused);
    expect(paused.run).toMatchObject({ state: 'input-required', interrupt: { screenId: 'approve-summary' } });
    expect((await shown(ids.canceled)).run.state).toBe('canceled');
  });

  it('continues the run whose worker died before the upgrade, to its pause, and takes the answer', async () => {
    await expect.poll(async () => (await shown(ids.orphan)).run.state, { timeout: 30_000, interval: 250 }).toBe('input-required');
    expect(service.output()).toContain('continuing 1 run(s) whose worker stopped');
    await trpcCall(service.url, cookie, 'runs.answer', { id: ids.orphan, screenId: 'approve-summary', values: { approved: true, notes: 'After the upgrade.' } });
    await expect.poll(async () => (await shown(ids.orphan)).run.state, { timeout: 30_000, interval: 250 }).toBe('completed');
    // A second answer to the same (now answered) pause is refused.
    await expect(trpcCall(service.url, cookie, 'runs.answer', { id: ids.orphan, screenId: 'approve-summary', values: { approved: false } })).rejects.toThrow(/CONFLICT|not waiting/);
  });
});
