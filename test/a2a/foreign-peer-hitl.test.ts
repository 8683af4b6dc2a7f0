import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_FORM, startSdkHitlPeer, type SdkHitlPeer } from '../helpers/sdk-hitl-peer.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';

/**
 * A peer that is not this project (agents built with `@a2a-js/sdk` only) pauses with its own
 * `input-required`: on the built service the remote run becomes a local pause showing the
 * peer's question (a free-text answer, or the peer's form when its message carries a JSON
 * Schema), and the answer a local human gives goes back on the same task as the SDK expects.
 */
const t = useTestDatabase();
const ADMIN = { email: 'admin@acme.test', password: 'a long admin password 456' };
let peer: SdkHitlPeer;
let service: RunningService;
let cookie: string;

beforeAll(async () => {
  peer = await startSdkHitlPeer();
  service = await startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_ADMIN_EMAIL: ADMIN.email, SERVICE_ADMIN_PASSWORD: ADMIN.password } });
  cookie = await signInCookie(service.url, ADMIN.email, ADMIN.password);
  await trpcCall(service.url, cookie, 'a2a.peers.register', { id: 'sdk', name: 'SDK peer', baseUrl: peer.baseUrl, clientId: peer.clientId, clientSecret: peer.clientSecret });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await peer?.close();
});

const local = () => testServices(t.db);

async function settled(runId: string, state: string) {
  await expect.poll(async () => (await local().runs.get(runId))?.state, { timeout: 20_000 }).toBe(state);
  return (await local().runs.get(runId))!;
}

describe('HITL with an A2A peer built on @a2a-js/sdk', () => {
  it('shows a question asked in words as a pause with one text field, and sends the answer back as text on the same task', async () => {
    const { runId } = await trpcCall<{ runId: string }>(service.url, cookie, 'runs.start', { agent: 'greeter', text: 'Hi there.', peerId: 'sdk' });
    const paused = await settled(runId, 'input-required');
    expect(paused.interrupt).toMatchObject({ screenId: 'peer-input', title: 'What is your name?', peer: 'text', schema: { required: ['text'] } });
    await expect(trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: {} })).rejects.toThrow(/does not match/);
    await trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: { text: 'Ada' } });
    const done = await settled(runId, 'completed');
    expect(done.artifacts.flatMap((artifact) => artifact.parts)).toContainEqual({ type: 'text', text: 'Hello, Ada!' });
    // On the peer: the same task got the answer as a text part.
    const [first, answer] = peer.received.filter((message) => message.taskId === peer.received.at(-1)!.taskId);
    expect(first!.text).toBe('Hi there.');
    expect(answer).toMatchObject({ text: 'Ada', data: [] });
  });

  it("shows the peer's form when its question carries a JSON Schema, and sends the values back as a data part", async () => {
    const { runId } = await trpcCall<{ runId: string }>(service.url, cookie, 'runs.start', { agent: 'order', text: 'About my order.', peerId: 'sdk' });
    const paused = await settled(runId, 'input-required');
    expect(paused.interrupt).toMatchObject({ screenId: 'peer-input', title: 'Which order is it, and is it a rush?', peer: 'form', schema: ORDER_FORM });
    await trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: { orderId: 'A-17', rush: true } });
    const done = await settled(runId, 'completed');
    expect(done.artifacts.flatMap((artifact) => artifact.parts)).toContainEqual({ type: 'text', text: 'Order A-17, rushed.' });
    expect(peer.received.at(-1)).toMatchObject({ data: [{ orderId: 'A-17', rush: true }] });
  });
});
