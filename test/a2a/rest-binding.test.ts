import { randomUUID } from 'node:crypto';
import { DEFAULT_AGENT_SETTING } from '@service/core/settings';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, startA2aHost } from '../helpers/a2a.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { readSseFrames, type SseFrame } from '../helpers/sse.ts';

/**
 * The A2A 1.0 HTTP+JSON (REST) binding on a running service: its paths under `/api/a2a` and a
 * per-agent base, the spec's HTTP statuses and google.rpc.Status error bodies, SSE streams that
 * resume with Last-Event-ID, isolation between clients, and the bearer checked before the body.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
let otherToken: string;

const admin = { type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await testServices(t.db).settings.set(admin, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  // Each scripted step takes a while, so a stream can be dropped in its middle.
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'], env: { SERVICE_LLM_SCRIPTED_DELAY_MS: '300' } }));
  const other = await testServices(t.db).oauth.clients.register(admin, { name: 'another client', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  otherToken = await fetchAccessToken(`${service.url}/api/oauth/token`, other.client.clientId, other.clientSecret);
});

afterAll(async () => {
  await service?.stop();
});

interface Task {
  id: string;
  contextId: string;
  status: { state: string; message?: { parts: { data?: unknown; text?: string }[] } };
  artifacts?: { parts: { text?: string }[] }[];
  history?: { role: string; parts: unknown[] }[];
  metadata?: Record<string, unknown>;
}

function call(path: string, init: { method?: string; body?: unknown; bearer?: string | null; headers?: Record<string, string> } = {}): Promise<Response> {
  const bearer = init.bearer === undefined ? token : init.bearer;
  return fetch(`${service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...init.headers },
    ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
  });
}

async function ok<T>(response: Response): Promise<T> {
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  expect(response.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
  return (await response.json()) as T;
}

const message = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } });

type Frame = SseFrame & { data: Record<string, unknown> };

/** Reads an SSE response's frames until the stream ends or `stopAfter` frames arrived (then drops the connection). */
async function frames(response: Response, stopAfter = Infinity): Promise<Frame[]> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return (await readSseFrames(response, stopAfter)) as Frame[];
}

function expectA2aError(body: unknown, http: number, status: string, reason?: string) {
  expect(body).toMatchObject({ error: { code: http, status, message: expect.any(String) } });
  const details = (body as { error: { details: { '@type': string; reason?: string; domain?: string }[] } }).error.details;
  for (const detail of details) expect(detail['@type']).toMatch(/^type\.googleapis\.com\/google\.rpc\./);
  if (reason) expect(details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' });
}

describe('the HTTP+JSON binding of A2A 1.0', () => {
  it('is listed in the card beside JSON-RPC, at the same URL', async () => {
    const card = (await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[] };
    expect(card.supportedInterfaces).toEqual([
      { url: `${service.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${service.url}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${service.url}/api/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    const one = (await (await fetch(`${service.url}/a2a/acme/summarizer/.well-known/agent-card.json`)).json()) as typeof card;
    expect(one.supportedInterfaces.find((i) => i.protocolBinding === 'HTTP+JSON')?.url).toBe(`${service.url}/a2a/acme/summarizer`);
  });

  it('sends (waiting for the task), gets it with historyLength, lists it, and serves the extended card', async () => {
    // A context id of digits only stays a string in the query.
    const contextId = String(Date.now());
    const { task } = await ok<{ task: Task }>(await call('/api/a2a/message:send', { body: message('REST clients work. They do.', { contextId }) }));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.metadata).toMatchObject({ agent: '@acme/summarizer' });
    expect(task.artifacts?.flatMap((a) => a.parts.map((p) => p.text)).join('')).toContain('REST clients work');

    const read = await ok<Task>(await call(`/api/a2a/tasks/${task.id}?historyLength=1`));
    expect(read.id).toBe(task.id);
    expect(read.history).toHaveLength(1);
    expect(read.history![0]!.role).toBe('ROLE_AGENT');

    const listed = await ok<{ tasks: Task[]; nextPageToken: string; pageSize: number; totalSize: number }>(await call(`/api/a2a/tasks?contextId=${contextId}&pageSize=10&includeArtifacts=false`));
    expect(listed).toMatchObject({ nextPageToken: '', pageSize: 1, totalSize: 1 });
    expect(listed.tasks.map((one) => one.id)).toEqual([task.id]);
    expect(listed.tasks[0]!.artifacts).toBeUndefined();
    expect((await ok<{ tasks: Task[] }>(await call(`/api/a2a/tasks?contextId=${contextId}&status=TASK_STATE_WORKING`))).tasks).toEqual([]);

    const card = await ok<{ skills: { id: string }[] }>(await call('/api/a2a/extendedAgentCard'));
    expect(card.skills.map((s) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
    expect((await ok<{ skills: { id: string }[] }>(await call('/a2a/acme/summarizer/extendedAgentCard'))).skills.map((s) => s.id)).toEqual(['@acme/summarizer']);
  });

  it('reads proto field names in a body as their JSON names, as ProtoJSON parsers do, and keeps metadata as sent', async () => {
    const contextId = randomUUID();
    const body = {
      message: { message_id: randomUUID(), context_id: contextId, role: 'ROLE_USER', parts: [{ text: 'Proto names work.', metadata: { trace_id: 't-1' } }] },
      configuration: { history_length: 1, accepted_output_modes: ['text/plain'] },
    };
    const { task } = await ok<{ task: Task }>(await call('/api/a2a/message:send', { body }));
    expect(task.contextId).toBe(contextId);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.history).toHaveLength(1);
    const read = await ok<Task & { history: { parts: { metadata?: unknown }[] }[] }>(await call(`/api/a2a/tasks/${task.id}`));
    expect(read.history[0]!.parts[0]!.metadata).toEqual({ trace_id: 't-1' });
  });

  it('streams bare StreamResponses with ids, and a dropped stream resumes after Last-Event-ID: every event exactly once', async () => {
    const body = message('Stream me over REST. Exactly once.');
    const first = await frames(await call('/api/a2a/message:stream', { body }), 2);
    expect(first.map((f) => f.id)).toEqual([1, 2]);
    const taskId = (first[0]!.data.task as Task).id;
    // The same message again (a retry) with Last-Event-ID: the rest of the same task's events.
    const rest = await frames(await call('/api/a2a/message:stream', { body, headers: { 'last-event-id': '2' } }));
    const full = await frames(await call('/api/a2a/message:stream', { body, headers: { 'last-event-id': '0' } }));
    expect([...first, ...rest]).toEqual(full);
    expect(full.map((f) => f.id)).toEqual(full.map((_, i) => i + 1));
    expect(Object.keys(full[0]!.data)).toEqual(['task']);
    expect(full.at(-1)!.data).toMatchObject({ statusUpdate: { taskId, status: { state: 'TASK_STATE_COMPLETED' } } });
    // Subscribing to the finished task with Last-Event-ID replays what follows it, after the snapshot.
    const replayed = await frames(await call(`/api/a2a/tasks/${taskId}:subscribe`, { method: 'POST', headers: { 'last-event-id': '2' } }));
    expect(replayed[0]).toMatchObject({ id: null, data: { task: { id: taskId, status: { state: 'TASK_STATE_COMPLETED' } } } });
    expect(replayed.slice(1)).toEqual(full.slice(2));
  });

  it('on a per-agent base: pauses, subscribes (GET and POST), answers the pause, cancels another task', async () => {
    const base = '/a2a/acme/editorial-review';
    const { task: paused } = await ok<{ task: Task }>(await call(`${base}/message:send`, { body: message('A draft about REST clients. It is short.') }));
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(paused.status.message?.parts.find((p) => p.data)?.data).toMatchObject({ interrupt: { type: 'INTERRUPT', screenId: 'approve-summary' } });

    for (const method of ['POST', 'GET']) {
      const seen = await frames(await call(`${base}/tasks/${paused.id}:subscribe`, { method }));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: null, data: { task: { id: paused.id, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    }

    const answer = { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { resume: { screenId: 'approve-summary', values: { approved: true } } } }] } };
    const { task: answered } = await ok<{ task: Task }>(await call(`${base}/message:send`, { body: answer }));
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    // Another agent's endpoint does not know the task.
    expect((await call(`/a2a/acme/summarizer/tasks/${paused.id}`)).status).toBe(404);

    const { task: second } = await ok<{ task: Task }>(await call(`${base}/message:send`, { body: message('Another draft. To cancel.') }));
    const canceled = await ok<Task>(await call(`${base}/tasks/${second.id}:cancel`, { method: 'POST' }));
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const again = await call(`${base}/tasks/${second.id}:cancel`, { method: 'POST', body: {} });
    expect(again.status).toBe(400);
    expectA2aError(await again.json(), 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
    const finished = await call(`${base}/tasks/${second.id}:subscribe`, { method: 'POST' });
    expect(finished.status).toBe(400);
    expectA2aError(await finished.json(), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  it('branches on the answer: a summary not approved ends with "Not approved" and the notes, and no teaser', async () => {
    const base = '/a2a/acme/editorial-review';
    const { task: paused } = await ok<{ task: Task }>(await call(`${base}/message:send`, { body: message('A draft that is not ready.') }));
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { resume: { screenId: 'approve-summary', values: { approved: false, notes: 'Cite the source.' } } } }] } };
    const { task: answered } = await ok<{ task: Task }>(await call(`${base}/message:send`, { body: answer }));
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text))).toEqual(['Not approved: Cite the source.']);
  });

  it("keeps clients apart: another client's task is 404 on every method and absent from its list", async () => {
    const { task } = await ok<{ task: Task }>(await call('/api/a2a/message:send', { body: message('Mine alone. Nobody else reads it.') }));
    for (const [path, method] of [[`/api/a2a/tasks/${task.id}`, 'GET'], [`/api/a2a/tasks/${task.id}:cancel`, 'POST'], [`/api/a2a/tasks/${task.id}:subscribe`, 'POST']] as const) {
      const response = await call(path, { method, bearer: otherToken });
      expect(response.status).toBe(404);
      expectA2aError(await response.json(), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    }
    const answer = await call('/api/a2a/message:send', { bearer: otherToken, body: message('Continuing yours.', { taskId: task.id }) });
    expect(answer.status).toBe(404);
    expect((await ok<{ tasks: Task[] }>(await call('/api/a2a/tasks?pageSize=100', { bearer: otherToken }))).tasks.map((one) => one.id)).not.toContain(task.id);
  });

  it('maps errors to the spec statuses with google.rpc.Status bodies', async () => {
    const missing = await call(`/api/a2a/tasks/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expectA2aError(await missing.json(), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');

    const notJson = await call('/api/a2a/message:send', { body: '{"message": ' });
    expect(notJson.status).toBe(400);
    expectA2aError(await notJson.json(), 400, 'INVALID_ARGUMENT');

    // Within the body limit but nested deeper than any walk of it may go: refused, not a crash (500).
    const depth = 170_000;
    const deep = await call('/api/a2a/message:send', { body: `{"message":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}` });
    expect(deep.status).toBe(400);
    expectA2aError(await deep.json(), 400, 'INVALID_ARGUMENT');

    const invalid = await call('/api/a2a/message:send', { body: { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } } });
    expect(invalid.status).toBe(400);
    const invalidBody = (await invalid.json()) as { error: { details: { '@type': string; fieldViolations?: { field: string }[] }[] } };
    expectA2aError(invalidBody, 400, 'INVALID_ARGUMENT');
    expect(invalidBody.error.details).toContainEqual(expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [expect.objectContaining({ field: 'message.parts' })] }));

    const negative = await call(`/api/a2a/tasks/${randomUUID()}?historyLength=-1`);
    expect(negative.status).toBe(400);

    const version = await call('/api/a2a/message:send', { body: message('Hello.'), headers: { 'a2a-version': '0.3' } });
    expect(version.status).toBe(400);
    expectA2aError(await version.json(), 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');

    // Push configs (push-notifications.test.ts in core has the deliveries): a config the policy refuses stops the send; the paths of an unknown task are not found.
    const withPush = await call('/api/a2a/message:send', { body: { ...message('Hello.'), configuration: { taskPushNotificationConfig: { url: 'ftp://example.com/hook' } } } });
    expect(withPush.status).toBe(400);
    expectA2aError(await withPush.json(), 400, 'INVALID_ARGUMENT');
    const taskId = randomUUID();
    for (const [path, method] of [[`/api/a2a/tasks/${taskId}/pushNotificationConfigs`, 'POST'], [`/api/a2a/tasks/${taskId}/pushNotificationConfigs`, 'GET'], [`/api/a2a/tasks/${taskId}/pushNotificationConfigs/c1`, 'GET'], [`/api/a2a/tasks/${taskId}/pushNotificationConfigs/c1`, 'DELETE']] as const) {
      const response = await call(path, { method, ...(method === 'POST' ? { body: { taskId, url: 'https://example.com/hook' } } : {}) });
      expect(response.status).toBe(404);
      expectA2aError(await response.json(), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    }

    const wrongMethod = await call('/api/a2a/message:send', { method: 'GET' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await call('/a2a/acme/nobody/tasks')).status).toBe(404);
  });

  it('refuses a request without a valid bearer before reading its body, and one over the body limit with 413', async () => {
    expect((await call('/api/a2a/tasks', { bearer: null })).status).toBe(401);
    const unauthenticated = await call('/api/a2a/message:send', { bearer: 'not-a-token', body: message('Hello.') });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expectA2aError(await unauthenticated.json(), 401, 'UNAUTHENTICATED');
    // The body is never finished: a server that waited for it would not answer at all.
    for (const authorization of ['Bearer not-a-token', undefined]) {
      const response = await rawRequest(`${service.url}/api/a2a/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024), ...(authorization ? { authorization } : {}) },
        body: `{"message":{"parts":[{"text":"${'a'.repeat(1024)}`,
        partialBody: true,
        timeoutMs: 10_000,
      });
      expect(response.status).toBe(401);
    }
    const big = await call('/api/a2a/message:send', { body: { ...message('Hello.'), metadata: { pad: 'x'.repeat(2 * 1024 * 1024) } } });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: number } }).error.code).toBe(413);
  });

  it('answers 404 while A2A is switched off', async () => {
    const switches = testServices(t.db).featureFlags;
    await switches.set(admin, 'a2aHttpEnabled', false);
    try {
      await expect.poll(async () => (await call('/api/a2a/tasks')).status, { timeout: 3000, interval: 100 }).toBe(404);
      expect((await call('/a2a/acme/summarizer/message:send', { body: message('Hello.') })).status).toBe(404);
    } finally {
      await switches.set(admin, 'a2aHttpEnabled', true);
    }
    await expect.poll(async () => (await call('/api/a2a/tasks')).status, { timeout: 3000, interval: 100 }).toBe(200);
  });
});
