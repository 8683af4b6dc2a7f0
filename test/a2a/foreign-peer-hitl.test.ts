import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PYTHON, pythonWithSdk } from '../helpers/python-a2a.ts';
import { ORDER_FORM, startSdkHitlPeer } from '../helpers/sdk-hitl-peer.ts';
import { signInCookie, startService, trpcCall, type RunningService } from '../helpers/service-process.ts';
import { stopChild } from '../helpers/stop-child.ts';

/**
 * Peers that are not this project pause with their own `input-required`: agents built only with
 * `@a2a-js/sdk`, and only with the Python `a2a-sdk`. On the built service each remote run becomes
 * a local pause showing the peer's question (a free-text answer, or the peer's form when its
 * message carries a JSON Schema), and the answer a local human gives goes back on the same task
 * as the peer's SDK reads it.
 */
interface ForeignPeer {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  received(): Promise<{ taskId: string; text: string; data: unknown[] }[]>;
  close(): Promise<void>;
}

const PYTHON_PEER = fileURLToPath(new URL('./python/hitl_peer.py', import.meta.url));

async function startPythonPeer(): Promise<ForeignPeer> {
  await pythonWithSdk();
  const clientId = 'python-peer-client';
  const clientSecret = randomUUID();
  const child = spawn(PYTHON, [PYTHON_PEER, clientId, clientSecret], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the Python peer did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(output);
      if (line) {
        clearTimeout(timer);
        resolve(line[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the Python peer exited ${code}:\n${output}`)));
  });
  return { baseUrl, clientId, clientSecret, received: async () => (await (await fetch(`${baseUrl}/received`)).json()) as never, close: () => stopChild(child) };
}

async function startJsPeer(): Promise<ForeignPeer> {
  const peer = await startSdkHitlPeer();
  return { ...peer, received: async () => peer.received };
}

const t = useTestDatabase();
const ADMIN = { email: 'admin@acme.test', password: 'a long admin password 456' };
let service: RunningService;
let cookie: string;

beforeAll(async () => {
  service = await startService({ mongodbUri: t.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_ADMIN_EMAIL: ADMIN.email, SERVICE_ADMIN_PASSWORD: ADMIN.password } });
  cookie = await signInCookie(service.url, ADMIN.email, ADMIN.password);
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

const local = () => testServices(t.db);

async function settled(runId: string, state: string) {
  await expect.poll(async () => (await local().runs.get(runId))?.state, { timeout: 20_000 }).toBe(state);
  return (await local().runs.get(runId))!;
}

const peers = [
  ['@a2a-js/sdk', 'js-sdk', startJsPeer],
  ['the Python a2a-sdk', 'python-sdk', startPythonPeer],
] as const;

for (const [name, peerId, start] of peers) {
  describe(`HITL with an A2A peer built on ${name}`, () => {
    let peer: ForeignPeer;

    beforeAll(async () => {
      peer = await start();
      await trpcCall(service.url, cookie, 'a2a.peers.register', { id: peerId, name, baseUrl: peer.baseUrl, clientId: peer.clientId, clientSecret: peer.clientSecret });
    }, 360_000);

    afterAll(async () => {
      await peer?.close();
    });

    it('shows a question asked in words as a pause with one text field, and sends the answer back as text on the same task', async () => {
      const { runId } = await trpcCall<{ runId: string }>(service.url, cookie, 'runs.start', { agent: 'greeter', text: 'Hi there.', peerId });
      const paused = await settled(runId, 'input-required');
      expect(paused.interrupt).toMatchObject({ screenId: 'peer-input', title: 'What is your name?', peer: 'text', schema: { required: ['text'] } });
      await expect(trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: {} })).rejects.toThrow(/does not match/);
      await trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: { text: 'Ada' } });
      const done = await settled(runId, 'completed');
      expect(done.artifacts.flatMap((artifact) => artifact.parts)).toContainEqual({ type: 'text', text: 'Hello, Ada!' });
      // On the peer: the same task got the answer as a text part.
      const received = await peer.received();
      const [first, answer] = received.filter((message) => message.taskId === received.at(-1)!.taskId);
      expect(first!.text).toBe('Hi there.');
      expect(answer).toMatchObject({ text: 'Ada', data: [] });
    });

    it("shows the peer's form when its question carries a JSON Schema, and sends the values back as a data part", async () => {
      const { runId } = await trpcCall<{ runId: string }>(service.url, cookie, 'runs.start', { agent: 'order', text: 'About my order.', peerId });
      const paused = await settled(runId, 'input-required');
      expect(paused.interrupt).toMatchObject({ screenId: 'peer-input', title: 'Which order is it, and is it a rush?', peer: 'form', schema: ORDER_FORM });
      await trpcCall(service.url, cookie, 'runs.answer', { id: runId, screenId: 'peer-input', values: { orderId: 'A-17', rush: true } });
      const done = await settled(runId, 'completed');
      expect(done.artifacts.flatMap((artifact) => artifact.parts)).toContainEqual({ type: 'text', text: 'Order A-17, rushed.' });
      expect((await peer.received()).at(-1)).toMatchObject({ data: [{ orderId: 'A-17', rush: true }] });
    });
  });
}
