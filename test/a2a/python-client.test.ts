import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULT_AGENT_SETTING } from '@service/core/settings';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { expectSignedDeliveries, kindOf, startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { PYTHON, pythonWithSdk } from '../helpers/python-a2a.ts';

/**
 * The Python A2A SDK (PyPI `a2a-sdk` 1.x with its `grpc` extra, a v1.0 client) on JSON-RPC, HTTP+JSON and gRPC against a running service: a venv is
 * created once under node_modules/.cache and the SDK installed into it from PyPI. Its push
 * configs point at a receiver here, which checks the notifications the service sends.
 */
const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./python/a2a_sdk_check.py', import.meta.url));

const t = useTestDatabase();
let service: RunningService;
let token: string;
let sdkVersion: string;
let receiver: PushReceiver;

beforeAll(async () => {
  sdkVersion = await pythonWithSdk();
  receiver = await startPushReceiver();
  await testServices(t.db).settings.set({ type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' }, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'], env: { SERVICE_A2A_GRPC_PORT: '0' } }));
}, 300_000);

afterAll(async () => {
  await service?.stop();
  await receiver?.close();
});

type Json = Record<string, any>;

describe('the Python a2a-sdk 1.x client', () => {
  it.each([
    ['JSONRPC', false],
    ['HTTP+JSON', true],
    ['GRPC', false],
  ])('discovers, sends, streams, gets, lists, subscribes, answers a pause, cancels and sets push configs over v1.0 on %s', async (binding, httpJsonPaths) => {
    expect(sdkVersion).toMatch(/^1\.3\./);
    const { stdout } = await run(PYTHON, [SCRIPT, service.url, token, binding, receiver.url], { timeout: 120_000 }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`python client failed: ${error.stdout ?? ''} ${error.stderr ?? ''}`);
    });
    const { push, ...seen } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(seen).toEqual({
      interfaces: ['JSONRPC 1.0', 'JSONRPC 0.3', 'HTTP+JSON 1.0', 'GRPC 1.0'],
      send: 'TASK_STATE_COMPLETED',
      stream: ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
      get: true,
      list: 1,
      reviewerSkills: ['@acme/editorial-review'],
      subscribe: 'TASK_STATE_INPUT_REQUIRED',
      answered: 'TASK_STATE_COMPLETED',
      cancel: 'TASK_STATE_CANCELED',
      httpJsonPaths,
      ...(binding === 'GRPC'
        ? {
            grpcMethods: ['CancelTask', 'CreateTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig', 'GetTask', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'ListTasks', 'SendMessage', 'SendStreamingMessage', 'SubscribeToTask'],
            httpPaths: [],
          }
        : {}),
    });
    await expectPythonPushFlow(push);
    expect(push.httpJsonCalls).toEqual(
      binding === 'HTTP+JSON'
        ? [
            'DELETE /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs/python-deleted',
            'GET /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs',
            'GET /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs/python',
            'GET /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs/python-deleted',
            'GET /api/a2a/tasks/{id}/pushNotificationConfigs',
            'POST /a2a/acme/editorial-review/tasks/{id}/pushNotificationConfigs',
          ]
        : [],
    );
  }, 180_000);
});

/**
 * What the Python client's push calls answered (configs without their token or credentials: the
 * ProtoJSON it prints leaves empty fields out), and what the receiver got for its tasks.
 */
async function expectPythonPushFlow(push: Json) {
  const { taskId, path, deletedPath } = push.paused;
  const shown = { taskId, id: 'python', url: `${receiver.url}${path}`, authentication: { scheme: 'Basic' } };
  expect(push.set).toEqual(shown);
  expect(push.get).toEqual(shown);
  expect(push.listed).toEqual([shown, { taskId, id: 'python-deleted', url: `${receiver.url}${deletedPath}` }]);
  expect(push.afterDelete).toEqual(['python']);
  expect(push.deletedGet).toBe('TaskNotFoundError');
  const afterAnswer = await expectSignedDeliveries(receiver, service.url, { path, taskId, configId: 'python', token: 'receiver-token', authorization: 'Basic cmVjZWl2ZXI6c2VjcmV0' });
  expect(afterAnswer.map((n) => [kindOf(n), JSON.parse(n.body).statusUpdate?.status?.state])).toEqual([['statusUpdate', 'TASK_STATE_WORKING'], ['artifactUpdate', undefined], ['statusUpdate', 'TASK_STATE_COMPLETED']]);
  // The config deleted before the answer got nothing.
  expect(receiver.received.filter((n) => n.path === deletedPath)).toEqual([]);

  const { taskId: sentId, path: sentPath, configs } = push.withMessage;
  expect(configs).toEqual([{ taskId: sentId, id: expect.any(String), url: `${receiver.url}${sentPath}` }]);
  const fromStart = await expectSignedDeliveries(receiver, service.url, { path: sentPath, taskId: sentId, configId: configs[0].id });
  expect(fromStart.map(kindOf)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  expect(fromStart.map((n) => Number(n.headers['x-a2a-notification-seq']))).toEqual([1, 2, 3, 4]);
}
