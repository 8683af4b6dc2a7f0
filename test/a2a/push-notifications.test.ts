import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Message, TaskState, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { findFreePort } from '@service/core/net';
import { useTestDatabase } from '@service/core/testing';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';

/**
 * A2A push notifications on a running service, set by the reference client (`@a2a-js/sdk` 1.3)
 * over JSON-RPC and over HTTP+JSON: the service's own background work delivers them to a
 * receiver here, which checks each one with the JWKS the service publishes, as a real receiver
 * would, and records them. (core/src/a2a/push-notifications.test.ts covers limits, isolation,
 * SSRF and retries in one process.)
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
/** The host's environment, kept so a restarted host has the same address, master key and so signing key. */
let env: Record<string, string>;

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
/** Paths the receiver refuses (503) for now, and how many times it did. */
const refusing = new Set<string>();
let refusals = 0;
let receiverServer: http.Server;
let hook: string;

beforeAll(async () => {
  receiverServer = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (refusing.has(req.url ?? '')) {
        refusals++;
        return void res.writeHead(503).end();
      }
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiverServer.listen(0, '127.0.0.1', resolve));
  hook = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}`;
  // Each scripted step takes a while, so a config set right after a send is in place before the task ends.
  const fixed = { SERVICE_LLM_SCRIPTED_DELAY_MS: '300', PORT: String(await findFreePort()), SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
  ({ service, token, env } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer'], env: fixed }));
});

afterAll(async () => {
  await service?.stop();
  await new Promise<void>((resolve) => receiverServer?.close(() => resolve()));
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

/** The notifications that reached `path`, once the last one is the task's terminal status (the service sends them in the background). */
async function notificationsAt(path: string, taskId: string): Promise<Received[]> {
  for (;;) {
    const mine = received.filter((n) => n.path === path);
    const last = mine.at(-1);
    if (last && JSON.parse(last.body).statusUpdate?.status?.state === 'TASK_STATE_COMPLETED' && JSON.parse(last.body).statusUpdate.taskId === taskId) return mine;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('push notifications set by @a2a-js/sdk 1.3', () => {
  for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`over ${transport}: sets a config on a task, which gets every later update in order, each signed`, async () => {
      const a2a = await client(transport);
      expect((await a2a.getAgentCard()).capabilities?.pushNotifications).toBe(true);
      // A task that waits for nothing completes before a config could be set on it: set it with
      // `returnImmediately` and read the updates after it.
      const started = await a2a.sendMessage({ ...request('Notify me. Please. Twice over.'), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true } });
      if ('messageId' in started) throw new Error('expected a task');
      const path = `/${transport}/${started.id}`;
      const config = await a2a.createTaskPushNotificationConfig({ tenant: '', id: 'sdk', taskId: started.id, url: `${hook}${path}`, token: 'receiver-token', authentication: undefined });
      expect(config).toMatchObject({ id: 'sdk', taskId: started.id, url: `${hook}${path}` });
      expect(await a2a.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'sdk' })).toMatchObject({ id: 'sdk', url: `${hook}${path}` });
      expect((await a2a.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual(['sdk']);

      // A second task with the config sent along with its message gets every update from its first.
      const path2 = `${path}/with-message`;
      const second = await a2a.sendMessage({ ...request('From the start. Yes.'), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: `${hook}${path2}`, token: '', authentication: undefined }, historyLength: undefined, returnImmediately: false } });
      if ('messageId' in second) throw new Error('expected a task');
      expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const fromStart = await notificationsAt(path2, second.id);
      expect(fromStart.map((n) => Object.keys(JSON.parse(n.body))[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
      expect(fromStart.map((n) => Number(n.headers['x-a2a-notification-seq']))).toEqual([1, 2, 3, 4]);

      const jwks = createRemoteJWKSet(new URL(`${service.url}/.well-known/jwks.json`));
      for (const notification of fromStart) {
        // Without credentials in the config, the service's JWT is the bearer.
        expect(notification.headers.authorization).toBe(`Bearer ${notification.headers['x-a2a-notification-jwt']}`);
        const { payload } = await jwtVerify(notification.headers['x-a2a-notification-jwt'] as string, jwks, { issuer: service.url, audience: `${hook}${path2}`, typ: 'a2a-push+jwt' });
        expect(payload).toMatchObject({ taskId: second.id, seq: Number(notification.headers['x-a2a-notification-seq']), request_body_sha256: createHash('sha256').update(notification.body).digest('hex') });
      }

      // The first task's config was set after it started: it gets the updates from then on, in order, with its token.
      const later = await notificationsAt(path, started.id);
      const seqs = later.map((n) => Number(n.headers['x-a2a-notification-seq']));
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(later.every((n) => n.headers['x-a2a-notification-token'] === 'receiver-token')).toBe(true);

      await a2a.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'sdk' });
      expect((await a2a.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
    });
  }
});

describe('push notifications across a killed host', () => {
  it('keeps what was not delivered in the outbox: the restarted host sends it, in order', async () => {
    const path = '/restart';
    refusing.add(path);
    const response = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Survive a restart. Yes.' }], metadata: { skillId: '@acme/summarizer' } }, configuration: { taskPushNotificationConfig: { url: `${hook}${path}` } } } }),
    });
    const taskId = ((await response.json()) as { result: { task: { id: string } } }).result.task.id;
    // The receiver has refused the first notification at least once: it waits in the outbox, the later ones behind it.
    while (refusals === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    await service.kill();
    refusing.delete(path);
    service = await startService({ mongodbUri: t.uri, env });
    const delivered = await notificationsAt(path, taskId);
    const seqs = delivered.map((n) => Number(n.headers['x-a2a-notification-seq']));
    // At least once: a repeat would carry the same number, and the first of each comes in order.
    expect([...new Set(seqs)]).toEqual([1, 2, 3, 4]);
  });
});
