import { randomBytes } from 'node:crypto';
import { runEventsAfter } from '@service/core/db';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
let a: RunningService;
let b: RunningService;
let token: string;

beforeAll(async () => {
  // Two web processes on one database; each LLM turn takes 1.5 s, so a run is still working when it is canceled.
  // One instance behind a load balancer: the same canonical origin and master key in both.
  const shared = { SERVICE_LLM_SCRIPTED_DELAY_MS: '1500', SERVICE_BASE_URL: 'http://agents.test', SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
  const host = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', env: shared });
  ({ service: a, token } = host);
  b = await startService({ mongodbUri: t.uri, env: host.env });
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const rpc = async (service: RunningService, method: string, params: unknown) => {
  const response = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return (await response.json()) as { result?: { id: string; status: { state: string } }; error?: { code: number; message: string } };
};

describe('cancel across web processes', () => {
  it('a run working in one process and canceled in another ends canceled: the worker stores no completion', async () => {
    const started = await rpc(a, 'message/send', { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Take your time. Then answer.' }] }, configuration: { blocking: false } });
    const taskId = started.result!.id;
    const stateOf = async (id: string) => (await rpc(a, 'tasks/get', { id })).result?.status.state;
    await expect.poll(() => stateOf(taskId), { timeout: 15_000, interval: 50 }).toBe('working');
    const canceled = await rpc(b, 'tasks/cancel', { id: taskId });
    expect(canceled, JSON.stringify(canceled)).toMatchObject({ result: { status: { state: 'canceled' } } });

    // The worker in process A lets go of the run's lease once it is done (its LLM turn over, its
    // write refused): from then on nothing of its can be stored. It must have stored no answer or completion.
    const leaseOwner = async () => ((await t.db.models.RunLease.collection.findOne({ _id: taskId as never }))?.owner as string | null | undefined) ?? null;
    await expect.poll(leaseOwner, { timeout: 30_000, interval: 100 }).toBeNull();
    expect(await stateOf(taskId)).toBe('canceled');
    const events = await t.db.models.RunEvent.find({ _id: runEventsAfter(taskId, 0) }).sort({ _id: 1 }).lean();
    const payloads = events.map((e) => JSON.parse(e.event) as { type: string; final?: boolean; status?: { state: string } });
    const states = payloads.map((p) => p.status?.state ?? p.type);
    expect(states.filter((s) => s === 'canceled')).toHaveLength(1);
    expect(states).not.toContain('completed');
    expect(payloads.at(-1)).toMatchObject({ type: 'status', final: true, status: { state: 'canceled' } });

    // A second cancel is refused: the run ended once.
    expect((await rpc(a, 'tasks/cancel', { id: taskId })).error?.code).toBe(-32002);
  });
});
