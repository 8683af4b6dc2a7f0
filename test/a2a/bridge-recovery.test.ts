import { randomBytes } from 'node:crypto';
import { createUserStore } from '@service/core/auth';
import { runEventsAfter } from '@service/core/db';
import { findFreePort } from '@service/core/net';
import { testServices, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installExampleAgents } from '../helpers/a2a.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

const dbA = useTestDatabase();
const dbB = useTestDatabase();
let a: RunningService;
let b: RunningService;
let envA: Record<string, string>;

beforeAll(async () => {
  await installExampleAgents(dbB.db, '@globex', ['summarizer']);
  await createUserStore(dbA.db.models).create({ email: 'ops@acme.test', password: 'correct horse battery', role: 'admin' });
  envA = { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: randomBytes(32).toString('base64'), PORT: String(await findFreePort()) };
  [a, b] = await Promise.all([
    startService({ mongodbUri: dbA.uri, env: envA }),
    // B's agent takes 2 s per LLM turn, so A can die while following it.
    startService({ mongodbUri: dbB.uri, env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_LLM_SCRIPTED_DELAY_MS: '2000' } }),
  ]);
  const { client, clientSecret } = await testServices(dbB.db).oauth.clients.register({ type: 'ui', id: 'admin-b', email: 'b@globex.test', role: 'admin' }, { name: 'acme', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  const localA = testServices(dbA.db, { SERVICE_MASTER_KEY: envA.SERVICE_MASTER_KEY! });
  await localA.peers.register({ type: 'ui', id: 'admin-a', email: 'ops@acme.test', role: 'admin' }, { id: 'globex', name: 'Globex', baseUrl: b.url, clientId: client.clientId, clientSecret });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

describe('following a remote run across a local restart', () => {
  it('picks the remote stream up again from the saved Last-Event-ID: every remote event once, in order', async () => {
    const cookie = await signInCookie(a.url, 'ops@acme.test', 'correct horse battery');
    const { runId } = await trpcCall<{ runId: string }>(a.url, cookie, 'runs.start', { agent: '@globex/summarizer', text: 'Follow me. Even after a crash.', peerId: 'globex' });
    await expect.poll(async () => (await dbA.db.models.Run.findById(runId).lean())?.lastSeq ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

    await a.kill();
    a = await startService({ mongodbUri: dbA.uri, env: envA });
    await expect.poll(async () => (await dbA.db.models.Run.findById(runId).lean())?.state, { timeout: 30_000, interval: 250 }).toBe('completed');

    // Events are stored as JSON text (core/src/runs/stored-json.ts).
    type Stored = { type: string; status?: unknown; artifact?: unknown; metadata?: { remote?: { taskId: string; eventId: number | null } } };
    const read = async (db: typeof dbA.db, id: string) => (await db.models.RunEvent.find({ _id: runEventsAfter(id, 0) }).sort({ _id: 1 }).lean()).map((e) => ({ seq: e.seq, event: JSON.parse(e.event) as Stored }));
    const local = await read(dbA.db, runId);
    expect(local.map((e) => e.seq)).toEqual(local.map((_, i) => i + 1));
    // The process that took over said so with an event of its own (no remote event id); the rest came from B.
    const bridged = local.filter((e) => typeof e.event.metadata?.remote?.eventId === 'number');
    const remoteTaskId = bridged.at(-1)!.event.metadata!.remote!.taskId;
    // B's own step records are internal: never sent, so never bridged.
    const remote = (await read(dbB.db, remoteTaskId)).filter((e) => e.event.type !== 'step' && e.event.type !== 'progress');
    // Every remote event after the opening Task, exactly once and in order.
    const shown = (events: typeof local) => events.map((e) => JSON.stringify(e.event.status ?? e.event.artifact));
    expect(shown(bridged)).toEqual(shown(remote.slice(1)));
    expect(bridged.map((e) => e.event.metadata!.remote!.eventId)).toEqual(remote.slice(1).map((e) => e.seq));
    expect(a.output()).toContain('following a remote run again after a restart');
  });
});
