import { randomUUID } from 'node:crypto';
import { Message, TaskState, type SendMessageRequest } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { expect } from 'vitest';
import { eventOf, expectSignedDeliveries, kindOf, type PushReceiver } from './push-receiver.ts';

const request = (text: string, extra: Record<string, unknown> = {}): SendMessageRequest => ({
  tenant: '',
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra }),
  metadata: undefined,
  configuration: undefined,
});

/** The Content-Type of a notification: the config's version decides the body (a 1.0 StreamResponse or the bare 0.3 event). */
const CONTENT_TYPE = { '1.0': 'application/a2a+json', '0.3': 'application/json' } as const;

/**
 * The push flow of `@a2a-js/sdk` 1.3 on whichever transport `host` and `reviewer` were built
 * with (`host`: a base whose messages reach the summarizer; `reviewer`: the editorial-review
 * agent, whose tasks pause for input). With the client's own push config calls it sets a config
 * on a paused task, reads, lists and deletes it, and sends another task with a config in the
 * send's configuration; the receiver gets each task's notifications, signed and in order, and
 * the token and credentials never come back in an answer. `version` is the client's mode: in 0.3
 * ("legacy") mode there is no per-agent card, so `reviewer` is a host client too and the messages
 * name their agent in `metadata.skillId`.
 */
export async function checkJsSdkPushFlow(options: { host: Client; reviewer: Client; receiver: PushReceiver; serviceUrl: string; pathPrefix: string; version?: '1.0' | '0.3' }) {
  const { host, reviewer, receiver, serviceUrl, pathPrefix, version = '1.0' } = options;
  const agent = (skillId: string) => (version === '0.3' ? { metadata: { skillId } } : {});
  expect((await host.getAgentCard()).capabilities?.pushNotifications).toBe(true);

  // A config set on a task that waits for input: it gets what follows the answer.
  const paused = await reviewer.sendMessage(request('A draft to be notified about. Short.', agent('@acme/editorial-review')));
  if ('messageId' in paused) throw new Error('expected a task');
  expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const path = `${pathPrefix}/${paused.id}`;
  const url = `${receiver.url}${path}`;
  const set = await reviewer.createTaskPushNotificationConfig({ tenant: '', id: 'sdk', taskId: paused.id, url, token: 'receiver-token', authentication: { scheme: 'Basic', credentials: 'cmVjZWl2ZXI6c2VjcmV0' } });
  expect(set).toMatchObject({ id: 'sdk', taskId: paused.id, url, token: '', authentication: { scheme: 'Basic', credentials: '' } });
  expect(await reviewer.getTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: 'sdk' })).toMatchObject({ id: 'sdk', taskId: paused.id, url, token: '', authentication: { scheme: 'Basic', credentials: '' } });
  const listed = await reviewer.listTaskPushNotificationConfig({ tenant: '', taskId: paused.id, pageSize: 0, pageToken: '' });
  expect(listed.configs.map((c) => [c.id, c.url, c.token, c.authentication?.credentials])).toEqual([['sdk', url, '', '']]);

  const answered = await reviewer.sendMessage(request('', { taskId: paused.id, parts: [{ data: { approved: true } }] }));
  if ('messageId' in answered) throw new Error('expected a task');
  expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const afterAnswer = await expectSignedDeliveries(receiver, serviceUrl, { path, taskId: paused.id, configId: 'sdk', token: 'receiver-token', authorization: 'Basic cmVjZWl2ZXI6c2VjcmV0' });
  // Only what followed the config: not the task as created, nor the pause.
  expect(afterAnswer.map((n) => [eventOf(n).kind, eventOf(n).state])).toEqual([['statusUpdate', 'TASK_STATE_WORKING'], ['artifactUpdate', undefined], ['statusUpdate', 'TASK_STATE_COMPLETED']]);
  expect(afterAnswer.every((n) => n.headers['content-type'] === CONTENT_TYPE[version])).toBe(true);

  await reviewer.deleteTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: 'sdk' });
  expect((await reviewer.listTaskPushNotificationConfig({ tenant: '', taskId: paused.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  await expect(reviewer.getTaskPushNotificationConfig({ tenant: '', taskId: paused.id, id: 'sdk' })).rejects.toMatchObject({ name: 'TaskNotFoundError' });

  // A config sent with the message that starts a task: every event from the first.
  const fromStartPath = `${pathPrefix}/with-message`;
  const sent = await host.sendMessage({
    ...request('From the start. Yes.', agent('@acme/summarizer')),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: `${receiver.url}${fromStartPath}`, token: '', authentication: undefined }, historyLength: undefined, returnImmediately: false },
  });
  if ('messageId' in sent) throw new Error('expected a task');
  expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const [config, ...others] = (await host.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' })).configs;
  expect(others).toEqual([]);
  expect(config).toMatchObject({ taskId: sent.id, url: `${receiver.url}${fromStartPath}`, token: '' });
  const fromStart = await expectSignedDeliveries(receiver, serviceUrl, { path: fromStartPath, taskId: sent.id, configId: config!.id });
  expect(fromStart.map(kindOf)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  expect(fromStart.map((n) => Number(n.headers['x-a2a-notification-seq']))).toEqual([1, 2, 3, 4]);
  expect(fromStart.every((n) => n.headers['content-type'] === CONTENT_TYPE[version])).toBe(true);
}
