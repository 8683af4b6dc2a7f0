import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
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
 * The reference A2A client, `@a2a-js/sdk` 1.3, with only its HTTP+JSON (REST) transport, against
 * a running service: it picks the card's HTTP+JSON interface and runs the flows the JSON-RPC
 * test runs (reference-client.test.ts), with nothing service-specific in the messages.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
let receiver: PushReceiver;

beforeAll(async () => {
  await testServices(t.db).settings.set({ type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' }, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'] }));
  receiver = await startPushReceiver();
});

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

/** Every request the client makes, with the bearer; the paths it asked for are kept to show which binding it spoke. */
const paths: string[] = [];
const withBearer: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('authorization', `Bearer ${token}`);
  paths.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
  return fetch(input, { ...init, headers });
};

const restOnly = () =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: withBearer }),
      transports: [new RestTransportFactory({ fetchImpl: withBearer })],
      preferredTransports: ['HTTP+JSON'],
    }),
  );




describe('@a2a-js/sdk 1.3 over HTTP+JSON', () => {
  let client: Client;
  beforeAll(async () => {
    client = await restOnly().createFromUrl(service.url);
  });

  it('discovers the card, picks the HTTP+JSON interface and reads the extended card', async () => {
    expect(client.protocolVersion).toBe('1.0');
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
    expect(paths).toContain('GET /api/a2a/extendedAgentCard');
  });

  it('sends without naming an agent, then gets and lists the task', async () => {
    const contextId = randomUUID();
    const result = await client.sendMessage(sdkRequest('REST clients work. They do.', { contextId }));
    if ('messageId' in result) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(result.metadata).toMatchObject({ agent: '@acme/summarizer' });
    expect(artifactText(result)).toContain('REST clients work');
    expect(paths).toContain('POST /api/a2a/message:send');

    const read = await client.getTask({ tenant: '', id: result.id, historyLength: 1 });
    expect(read.history).toHaveLength(1);
    expect(read.history[0]!.role).toBe(Role.ROLE_AGENT);

    const listed = await client.listTasks({ tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false });
    expect(listed.tasks.map((task) => task.id)).toEqual([result.id]);
    expect(listed.totalSize).toBe(1);
  });

  it('streams a task, then on one agent subscribes to a paused task, answers it and cancels another', async () => {
    const events = await collectStream(client.sendMessageStream(sdkRequest('Stream me. Please.')));
    expect(events.map((e) => e.payload?.$case)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const reviewer = await restOnly().createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    const paused = await reviewer.sendMessage(sdkRequest('A draft about REST clients. It is short.'));
    if ('messageId' in paused) throw new Error('expected a task');
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(paths).toContain('POST /a2a/acme/editorial-review/message:send');

    const seen = await collectStream(reviewer.resubscribeTask({ tenant: '', id: paused.id }));
    expect(seen.map((e) => e.payload?.$case)).toEqual(['task']);
    const answered = await reviewer.sendMessage(sdkRequest('', { taskId: paused.id, parts: [{ data: { approved: true, notes: 'Fine.' } }] }));
    if ('messageId' in answered) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const second = await reviewer.sendMessage(sdkRequest('Another draft. To cancel.'));
    if ('messageId' in second) throw new Error('expected a task');
    expect((await reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError', statusCode: 400 });
  });

  it('reads the typed errors of unary and streaming methods', async () => {
    await expect(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError', statusCode: 404 });
    await expect(collectStream(client.resubscribeTask({ tenant: '', id: randomUUID() }))).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('sets, reads, lists and deletes push configs, one with a send, and the receiver gets each task’s notifications, signed and in order', async () => {
    const reviewer = await restOnly().createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    await checkJsSdkPushFlow({ host: client, reviewer, receiver, serviceUrl: service.url, pathPrefix: '/rest' });
    // The client's push calls went to the spec's HTTP+JSON paths.
    const pushCalls = new Set(paths.filter((p) => p.includes('/pushNotificationConfigs')).map((p) => p.replace(/\/tasks\/[^/]+\//, '/tasks/{id}/')));
    expect([...pushCalls].sort()).toEqual([
      'DELETE /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs/sdk',
      'GET /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs',
      'GET /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs/sdk',
      'GET /api/a2a/tasks/{id}/pushNotificationConfigs',
      'POST /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs',
    ]);
  });
});
