import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULT_AGENT_SETTING } from '@service/core/settings';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';

/**
 * The Python A2A SDK (PyPI `a2a-sdk` 1.x with its `grpc` extra, a v1.0 client) on JSON-RPC, HTTP+JSON and gRPC against a running service: a venv is
 * created once under node_modules/.cache and the SDK installed into it from PyPI.
 */
const run = promisify(execFile);
const VENV = fileURLToPath(new URL('../node_modules/.cache/a2a-python-1.3', import.meta.url));
const PYTHON = `${VENV}/bin/python`;
const SCRIPT = fileURLToPath(new URL('./python/a2a_sdk_check.py', import.meta.url));

async function pythonWithSdk(): Promise<string> {
  if (!existsSync(PYTHON)) await run('python3', ['-m', 'venv', VENV]);
  // The gRPC transport needs the `grpc` extra (grpcio).
  const installed = await run(PYTHON, ['-c', 'import a2a.client, grpc, importlib.metadata as m; print(m.version("a2a-sdk"))']).catch(() => null);
  if (!installed?.stdout.startsWith('1.3.')) await run(`${VENV}/bin/pip`, ['install', '--quiet', '--disable-pip-version-check', 'a2a-sdk[grpc]~=1.3.0'], { timeout: 240_000 });
  return (await run(PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("a2a-sdk"))'])).stdout.trim();
}

const t = useTestDatabase();
let service: RunningService;
let token: string;
let sdkVersion: string;

beforeAll(async () => {
  sdkVersion = await pythonWithSdk();
  await testServices(t.db).settings.set({ type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' }, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'], env: { SERVICE_A2A_GRPC_PORT: '0' } }));
}, 300_000);

afterAll(async () => {
  await service?.stop();
});

describe('the Python a2a-sdk 1.x client', () => {
  it.each([
    ['JSONRPC', false],
    ['HTTP+JSON', true],
    ['GRPC', false],
  ])('discovers, sends, streams, gets, lists, subscribes, answers a pause and cancels over v1.0 on %s', async (binding, httpJsonPaths) => {
    expect(sdkVersion).toMatch(/^1\.3\./);
    const { stdout } = await run(PYTHON, [SCRIPT, service.url, token, binding], { timeout: 120_000 }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`python client failed: ${error.stdout ?? ''} ${error.stderr ?? ''}`);
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!);
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
      ...(binding === 'GRPC' ? { grpcMethods: ['CancelTask', 'GetTask', 'ListTasks', 'SendMessage', 'SendStreamingMessage', 'SubscribeToTask'], httpPaths: [] } : {}),
    });
  }, 180_000);
});
