import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { DEFAULT_AGENT_SETTING } from '@service/core/settings';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { checkJsSdkPushFlow } from '../helpers/js-sdk-push-flow.ts';
import { startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { artifactText, collectStream, sdkRequest } from '../helpers/js-sdk-v1.ts';

/**
 * The reference A2A client, `@a2a-js/sdk` 1.3, against a running service: in its default v1.0
 * mode and in its v0.3 ("legacy") mode, with nothing service-specific in the messages.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
let receiver: PushReceiver;

const admin = { type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  // Two agents: a message that names none goes to the admin's default agent.
  await testServices(t.db).settings.set(admin, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'] }));
  receiver = await startPushReceiver();
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

function factory(legacy: boolean) {
  const legacyCompat = { enabled: legacy };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withBearer, legacyCompat }),
      transports: [new JsonRpcTransportFactory({ fetchImpl: withBearer, legacyCompat })],
    }),
  );
}




describe('@a2a-js/sdk 1.3 in its default (v1.0) mode', () => {
  let client: Client;
  beforeAll(async () => {
    client = await factory(false).createFromUrl(service.url);
  });

  it('discovers the v1.0 card and speaks 1.0', async () => {
    expect(client.protocolVersion).toBe('1.0');
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual(['JSONRPC 1.0', 'JSONRPC 0.3', 'HTTP+JSON 1.0']);
    expect(card.skills.map((s) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
  });

  it('sends without naming an agent (the default agent answers), then gets and lists the task', async () => {
    const contextId = randomUUID();
    const result = await client.sendMessage(sdkRequest('Generic clients work. They do.', { contextId }));
    if ('messageId' in result) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(result.metadata).toMatchObject({ agent: '@acme/summarizer' });
    expect(artifactText(result)).toContain('Generic clients work');

    const read = await client.getTask({ tenant: '', id: result.id, historyLength: 1 });
    expect(read.history).toHaveLength(1);
    expect(read.history[0]!.role).toBe(Role.ROLE_AGENT);

    const listed = await client.listTasks({ tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false });
    expect(listed.tasks.map((task) => task.id)).toEqual([result.id]);
    expect(listed.totalSize).toBe(1);
    expect(listed.tasks[0]!.artifacts).toEqual([]);
  });

  it('streams a task, then subscribes to a paused one, answers it with a data part of values, and cancels another', async () => {
    const events = await collectStream(client.sendMessageStream(sdkRequest('Stream me. Please.')));
    expect(events.map((e) => e.payload?.$case)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // One agent's own endpoint: its card lists that agent alone.
    const reviewer = await factory(false).createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    expect((await reviewer.getAgentCard()).skills.map((s) => s.id)).toEqual(['@acme/editorial-review']);
    const paused = await reviewer.sendMessage(sdkRequest('A draft about generic clients. It is short.'));
    if ('messageId' in paused) throw new Error('expected a task');
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(paused.metadata).toMatchObject({ agent: '@acme/editorial-review' });
    const interrupt = paused.status?.message?.parts.find((p) => p.content?.$case === 'data')?.content;
    expect(interrupt?.$case === 'data' && interrupt.value).toMatchObject({ interrupt: { type: 'INTERRUPT', screenId: 'approve-summary', accepts: expect.arrayContaining(['resume', 'values']) } });

    // Subscribing to a paused task: its current state, and the stream ends (it waits for input).
    const seen = await collectStream(reviewer.resubscribeTask({ tenant: '', id: paused.id }));
    expect(seen.map((e) => e.payload?.$case)).toEqual(['task']);
    expect(seen[0]!.payload?.$case === 'task' && seen[0]!.payload.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const answered = await reviewer.sendMessage(sdkRequest('', { taskId: paused.id, parts: [{ data: { approved: true, notes: 'Fine.' } }] }));
    if ('messageId' in answered) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The history holds the input, the agent's messages and the answer.
    const history = (await reviewer.getTask({ tenant: '', id: paused.id, historyLength: undefined })).history;
    expect(history[0]!.role).toBe(Role.ROLE_USER);
    expect(history.some((m) => m.role === Role.ROLE_USER && m.parts.some((p) => p.content?.$case === 'data'))).toBe(true);

    const second = await reviewer.sendMessage(sdkRequest('Another draft. To cancel.'));
    if ('messageId' in second) throw new Error('expected a task');
    const canceled = await reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined })).rejects.toThrow(/canceled/i);
  });

  it('reads the typed errors of unary and streaming methods', async () => {
    await expect(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toMatchObject({ name: expect.stringMatching(/TaskNotFound/) });
    // A streaming method's error arrives inside the event stream, and the client reads it.
    await expect(collectStream(client.resubscribeTask({ tenant: '', id: randomUUID() }))).rejects.toThrow(/not found/i);
  });

  it('sets, reads, lists and deletes push configs, one with a send, and the receiver gets each task’s notifications, signed and in order', async () => {
    const reviewer = await factory(false).createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    await checkJsSdkPushFlow({ host: client, reviewer, receiver, serviceUrl: service.url, pathPrefix: '/jsonrpc' });
  });
});

describe('@a2a-js/sdk 1.3 in its v0.3 (legacy) mode, from the v0.3 card', () => {
  it('sends, streams, gets, resubscribes, answers a pause and cancels over v0.3', async () => {
    const client = await factory(true).createFromUrl(service.url, '/.well-known/agent.json');
    expect(client.protocolVersion).toBe('0.3');
    const result = await client.sendMessage(sdkRequest('Legacy clients work. Still.', { metadata: { skillId: '@acme/summarizer' } }));
    if ('messageId' in result) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await client.getTask({ tenant: '', id: result.id, historyLength: undefined })).id).toBe(result.id);
    const events = await collectStream(client.sendMessageStream(sdkRequest('Stream me. Please.')));
    expect(events.at(-1)!.payload?.$case).toBe('statusUpdate');
    const paused = await client.sendMessage(sdkRequest('A draft for the legacy path. Short.', { metadata: { skillId: '@acme/editorial-review' } }));
    if ('messageId' in paused) throw new Error('expected a task');
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // tasks/resubscribe: the paused task's snapshot; then the pause answered with the resume payload.
    const seen = await collectStream(client.resubscribeTask({ tenant: '', id: paused.id }));
    expect(seen[0]!.payload?.$case).toBe('task');
    const answered = await client.sendMessage(sdkRequest('', { taskId: paused.id, parts: [{ data: { resume: { screenId: 'approve-summary', values: { approved: true } } } }] }));
    if ('messageId' in answered) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const other = await client.sendMessage(sdkRequest('Another legacy draft. Cancel it.', { metadata: { skillId: '@acme/editorial-review' } }));
    if ('messageId' in other) throw new Error('expected a task');
    expect((await client.cancelTask({ tenant: '', id: other.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('sets, reads, lists and deletes push configs over tasks/pushNotificationConfig/*, one with a send, and the receiver gets 0.3 events, signed and in order', async () => {
    const client = await factory(true).createFromUrl(service.url, '/.well-known/agent.json');
    await checkJsSdkPushFlow({ host: client, reviewer: client, receiver, serviceUrl: service.url, pathPrefix: '/jsonrpc-0.3', version: '0.3' });
  });

  it('is refused without a token and 404 while the switch is off', async () => {
    expect((await fetch(`${service.url}/api/a2a`, { method: 'POST', body: '{}' })).status).toBe(401);
    const post = (path: string) => fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' }).then((r) => r.status);
    const switches = testServices(t.db).featureFlags;
    await switches.set(admin, 'a2aHttpEnabled', false);
    try {
      await expect.poll(() => post('/api/a2a'), { timeout: 3000, interval: 100 }).toBe(404);
      expect(await post('/a2a/acme/summarizer')).toBe(404);
    } finally {
      await switches.set(admin, 'a2aHttpEnabled', true);
    }
    await expect.poll(() => post('/api/a2a'), { timeout: 3000, interval: 100 }).toBe(200);
  });
});
