import { randomBytes, randomUUID } from 'node:crypto';
import { Message, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { findFreePort } from '@service/core/net';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { expectSignedDeliveries, notificationsAt, startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * A2A push notifications on a running service: a config set on a task while it runs (by the
 * reference client, `@a2a-js/sdk` 1.3, over JSON-RPC and over HTTP+JSON) gets the updates from
 * then on, and what a killed host had not delivered goes out after its restart. The service's own
 * background work delivers them to a receiver here, which checks each one with the JWKS the
 * service publishes, as a real receiver would. (Each SDK client's whole push flow on each binding:
 * reference-client*.test.ts, grpc-binding.test.ts, python-client.test.ts; limits, isolation, SSRF
 * and retries in one process: core/src/a2a/push-notifications.test.ts.)
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
/** The host's environment, kept so a restarted host has the same address, master key and so signing key. */
let env: Record<string, string>;
let receiver: PushReceiver;

beforeAll(async () => {
  receiver = await startPushReceiver();
  // Each scripted step takes a while, so a config set right after a send is in place before the task ends.
  const fixed = { SERVICE_LLM_SCRIPTED_DELAY_MS: '300', PORT: String(await findFreePort()), SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
  ({ service, token, env } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer'], env: fixed }));
});

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

const withBearer: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(input, { ...init, headers });
};

function client(transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withBearer }),
      transports: [transport === 'JSONRPC' ? new JsonRpcTransportFactory({ fetchImpl: withBearer }) : new RestTransportFactory({ fetchImpl: withBearer })],
      preferredTransports: [transport],
    }),
  ).createFromUrl(`${service.url}/a2a/acme/summarizer/`);
}

const request = (text: string): SendMessageRequest => ({
  tenant: '',
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }),
  metadata: undefined,
  configuration: undefined,
});

describe('a push config set on a running task by @a2a-js/sdk 1.3', () => {
  for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`over ${transport}: gets every later update in order, each signed, with its token`, async () => {
      const a2a = await client(transport);
      // A task that waits for nothing completes before a config could be set on it: set it with
      // `returnImmediately` and read the updates after it.
      const started = await a2a.sendMessage({ ...request('Notify me. Please. Twice over.'), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true } });
      if ('messageId' in started) throw new Error('expected a task');
      const path = `/${transport}/${started.id}`;
      await a2a.createTaskPushNotificationConfig({ tenant: '', id: 'sdk', taskId: started.id, url: `${receiver.url}${path}`, token: 'receiver-token', authentication: undefined });
      // Checked as a receiver would (signature, claims, token, increasing numbers) up to the completed status.
      await expectSignedDeliveries(receiver, service.url, { path, taskId: started.id, configId: 'sdk', token: 'receiver-token' });
      await a2a.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'sdk' });
    });
  }
});

describe('push notifications across a killed host', () => {
  it('keeps what was not delivered in the outbox: the restarted host sends it, in order', async () => {
    const path = '/restart';
    receiver.refuse(path);
    const response = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Survive a restart. Yes.' }], metadata: { skillId: '@acme/summarizer' } }, configuration: { taskPushNotificationConfig: { url: `${receiver.url}${path}` } } } }),
    });
    const taskId = ((await response.json()) as { result: { task: { id: string } } }).result.task.id;
    // The receiver has refused the first notification at least once: it waits in the outbox, the later ones behind it.
    while (receiver.refusals() === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    await service.kill();
    receiver.accept(path);
    service = await startService({ mongodbUri: t.uri, env });
    const delivered = await notificationsAt(receiver, path, taskId);
    const seqs = delivered.map((n) => Number(n.headers['x-a2a-notification-seq']));
    // At least once: a repeat would carry the same number, and the first of each comes in order.
    expect([...new Set(seqs)]).toEqual([1, 2, 3, 4]);
  });
});
