import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Services } from '../index.ts';
import { DEFAULT_AGENT_SETTING } from '../settings/index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
let token: string;
let otherToken: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const origin = 'http://127.0.0.1:3999';

beforeAll(async () => {
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await installExampleAgents(t.db, '@acme');
  const mine = await services.oauth.clients.register(admin, { name: 'peer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(mine.client)).access_token;
  const theirs = await services.oauth.clients.register(admin, { name: 'other', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  otherToken = (await services.oauth.tokens.issue(theirs.client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
});

let counter = 0;
const message = (text: string, extra: Record<string, unknown> = {}) => ({ messageId: `v1-${Date.now()}-${counter++}`, role: 'ROLE_USER', parts: [{ text }], ...extra });

function call(method: string, params: unknown, options: { headers?: Record<string, string>; bearer?: string; path?: string; agent?: string } = {}) {
  return services.handlers.a2a(
    new Request(`${origin}${options.path ?? '/api/a2a'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.bearer ?? token}`, ...options.headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    }),
    options.agent ? { agent: options.agent } : {},
  );
}

async function result(method: string, params: unknown, options: Parameters<typeof call>[2] = {}) {
  const body = (await (await call(method, params, options)).json()) as { result?: any; error?: { code: number; message: string } };
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result;
}

async function errorOf(method: string, params: unknown, options: Parameters<typeof call>[2] = {}) {
  const body = (await (await call(method, params, options)).json()) as { error?: { code: number; message: string } };
  return body.error;
}

const summarize = (text: string, extra: Record<string, unknown> = {}) => ({ message: message(text, { metadata: { skillId: '@acme/summarizer' }, ...extra }) });

describe('A2A v1.0 on /api/a2a', () => {
  it('answers SendMessage with { task } in v1.0 shapes, chosen by the method name or A2A-Version', async () => {
    const { task } = await result('SendMessage', summarize('Version one works. Indeed.'));
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED', message: { role: 'ROLE_AGENT' } }, artifacts: [{ parts: [{ text: expect.stringContaining('Version one works') }] }] });
    expect(JSON.stringify(task)).not.toMatch(/"kind"/);
    // A v0.3 client reads the same task in its own shapes.
    const legacy = (await (await call('tasks/get', { id: task.id })).json()) as { result: any };
    expect(legacy.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    // The header decides when given: 1.0 with a v0.3 method name is unknown; an unknown version is -32009.
    expect((await errorOf('tasks/get', { id: task.id }, { headers: { 'a2a-version': '1.0' } }))?.code).toBe(-32601);
    expect((await errorOf('GetTask', { id: task.id }, { headers: { 'a2a-version': '2.0' } }))?.code).toBe(-32009);
    expect((await errorOf('GetTask', { id: task.id }, { path: '/api/a2a?A2A-Version=0.5' }))?.code).toBe(-32009);
    expect((await result('GetTask', { id: task.id }, { headers: { 'a2a-version': '1.0' } })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses v0.3 payloads under v1.0 and the reverse, with -32602', async () => {
    expect((await errorOf('SendMessage', { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ kind: 'file', file: { uri: 'https://x.test/a.txt' } }], metadata: { skillId: '@acme/summarizer' } } }))?.code).toBe(-32602);
    expect((await errorOf('SendMessage', { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'a', data: {} }] } }))?.code).toBe(-32602);
  });

  it('writes a new task\'s first frame from what its creation stored, without reading the log back', async () => {
    const finds = vi.spyOn(t.db.models.RunEvent.collection, 'find');
    try {
      const response = await call('SendStreamingMessage', summarize('First frame at once. Yes.'));
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const readsBeforeFirstFrame = finds.mock.calls.map(([filter]) => JSON.stringify(filter));
      const taskId = (JSON.parse(/^data: (.*)$/m.exec(first)![1]!) as { result: { task: { id: string; status: { state: string } } } }).result.task.id;
      expect(/^id: 1$/m.test(first)).toBe(true);
      expect(readsBeforeFirstFrame.filter((filter) => filter.includes(taskId))).toEqual([]);
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      // The rest of the stream follows the log as before: every event once, in order, to the final one.
      expect([...`${first}${rest}`.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3, 4]);
    } finally {
      finds.mockRestore();
    }
  });

  it('streams v1.0 StreamResponses with strictly increasing ids, and streaming errors as one SSE frame', async () => {
    const response = await call('SendStreamingMessage', summarize('Stream in one. Zero.'));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await response.text()).split('\n\n').filter((f) => f.includes('data: '));
    const parsed = frames.map((f) => ({ id: Number(/^id: (\d+)/m.exec(f)?.[1]), data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) }));
    expect(parsed.map((f) => Object.keys(f.data.result)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(parsed.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    expect(parsed.every((f) => f.data.id === 7)).toBe(true);

    for (const [method, params] of [['SendStreamingMessage', { message: { role: 'ROLE_USER' } }], ['SubscribeToTask', { id: 'no-such-task' }]] as const) {
      const failed = await call(method, params);
      expect(failed.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frame = JSON.parse(/^data: (.*)$/m.exec(await failed.text())![1]!);
      expect(frame).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: method === 'SubscribeToTask' ? -32001 : -32602 } });
    }
  });

  it('SubscribeToTask on a finished task is an unsupported operation; with Last-Event-ID it replays what followed', async () => {
    const { task } = await result('SendMessage', summarize('Finished already. Yes.'));
    const refused = JSON.parse(/^data: (.*)$/m.exec(await (await call('SubscribeToTask', { id: task.id })).text())![1]!);
    expect(refused.error.code).toBe(-32004);
    const replay = await (await call('SubscribeToTask', { id: task.id }, { headers: { 'last-event-id': '2' } })).text();
    const ids = [...replay.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([3, 4]);
  });

  it('keeps every message in the history and honours historyLength', async () => {
    const paused = (await result('SendMessage', { message: message('A draft about history. Short.', { metadata: { skillId: '@acme/editorial-review' } }) })).task;
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const interrupt = paused.status.message.parts.find((p: any) => p.data)?.data.interrupt;
    expect(interrupt).toMatchObject({ type: 'INTERRUPT', screenId: 'approve-summary', accepts: ['resume', 'values'] });
    // Plain text is not an answer for this screen (two fields): the error says which shapes are.
    const textAnswer = await errorOf('SendMessage', { message: message('yes', { taskId: paused.id }) });
    expect(textAnswer).toMatchObject({ code: -32602, message: expect.stringMatching(/data part/) });
    const done = (await result('SendMessage', { message: message('', { taskId: paused.id, parts: [{ data: { approved: true } }] }) })).task;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const full = await result('GetTask', { id: paused.id });
    const roles = full.history.map((m: any) => m.role);
    expect(roles[0]).toBe('ROLE_USER');
    expect(full.history.some((m: any) => m.role === 'ROLE_USER' && m.parts[0].data?.approved === true)).toBe(true);
    expect(roles.filter((r: string) => r === 'ROLE_AGENT').length).toBeGreaterThanOrEqual(2);
    expect((await result('GetTask', { id: paused.id, historyLength: 2 })).history).toEqual(full.history.slice(-2));
    expect((await result('GetTask', { id: paused.id, historyLength: 0 })).history).toBeUndefined();
    // A finished task takes no more messages.
    expect((await errorOf('SendMessage', { message: message('more', { taskId: paused.id }) }))?.code).toBe(-32004);
  });

  it('gives every object of a v1.0 error\'s data an @type: ErrorInfo with the reason, BadRequest naming the fields', async () => {
    const { task } = await result('SendMessage', summarize('Typed errors. Yes.'));
    const invalid = (await errorOf('GetTask', { id: task.id, historyLength: -1 })) as { code: number; data?: Record<string, unknown>[] };
    expect(invalid.code).toBe(-32602);
    expect(invalid.data?.length).toBeGreaterThan(0);
    expect(invalid.data!.every((detail) => typeof detail['@type'] === 'string')).toBe(true);
    expect(invalid.data).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'historyLength', description: 'historyLength must not be negative' }] },
    ]);
    const missing = (await errorOf('GetTask', { id: 'no-such-task' })) as { code: number; data?: unknown };
    expect(missing).toMatchObject({ code: -32001, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] });
    // v0.3 errors keep their plain data.
    const legacy = (await (await call('tasks/get', { id: task.id, historyLength: -1 })).json()) as { error: { data?: unknown } };
    expect(JSON.stringify(legacy.error.data ?? null)).not.toMatch(/@type/);
  });

  it('knows the push-notification config methods (push-notifications.test.ts has the rest) and answers the extended card when authenticated', async () => {
    for (const method of ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']) {
      expect((await errorOf(method, { taskId: 'x', id: 'c', url: 'https://x.test/hook' }))?.code).toBe(-32001);
    }
    const card = await result('GetExtendedAgentCard', {});
    expect(card.capabilities).toMatchObject({ pushNotifications: true, extendedAgentCard: true, streaming: true });
    expect(card.skills.map((s: { id: string }) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
    // A client granted one agent sees that one; a client without `list` gets no card, one without `read` no task list.
    const narrow = await services.oauth.clients.register(admin, { name: 'narrow', allowedAgents: ['@acme/summarizer'], permissions: ['list', 'execute'] });
    const narrowToken = (await services.oauth.tokens.issue(narrow.client)).access_token;
    expect((await result('GetExtendedAgentCard', {}, { bearer: narrowToken })).skills.map((s: { id: string }) => s.id)).toEqual(['@acme/summarizer']);
    expect((await errorOf('ListTasks', {}, { bearer: narrowToken }))?.code).toBe(-32051);
    const blind = await services.oauth.clients.register(admin, { name: 'blind', allowedAgents: ['*'], permissions: ['read', 'execute'] });
    expect((await errorOf('GetExtendedAgentCard', {}, { bearer: (await services.oauth.tokens.issue(blind.client)).access_token }))?.code).toBe(-32051);
  });
});

describe('ListTasks', () => {
  it('lists the caller\'s tasks newest update first, by context, state and time, a page at a time with an exact total', async () => {
    const contextId = `ctx-${Date.now()}`;
    const before = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await result('SendMessage', summarize(`Task ${i}. Listed.`, { contextId }))).task.id);
    const first = await result('ListTasks', { contextId, pageSize: 2 });
    expect(first).toMatchObject({ pageSize: 2, totalSize: 5 });
    expect(first.tasks.map((task: any) => task.id)).toEqual([ids[4], ids[3]]);
    expect(first.tasks[0].artifacts).toBeUndefined();
    expect(first.nextPageToken).not.toBe('');
    const second = await result('ListTasks', { contextId, pageSize: 2, pageToken: first.nextPageToken, includeArtifacts: true, historyLength: 1 });
    expect(second.tasks.map((task: any) => task.id)).toEqual([ids[2], ids[1]]);
    expect(second.tasks[0].artifacts).toHaveLength(1);
    expect(second.tasks[0].history).toHaveLength(1);
    const third = await result('ListTasks', { contextId, pageSize: 2, pageToken: second.nextPageToken });
    expect(third.tasks.map((task: any) => task.id)).toEqual([ids[0]]);
    expect(third).toMatchObject({ nextPageToken: '', pageSize: 1, totalSize: 5 });

    expect((await result('ListTasks', { contextId, status: 'TASK_STATE_COMPLETED' })).totalSize).toBe(5);
    expect((await result('ListTasks', { contextId, status: 'TASK_STATE_WORKING' })).tasks).toEqual([]);
    expect((await result('ListTasks', { contextId, statusTimestampAfter: before })).totalSize).toBe(5);
    expect((await result('ListTasks', { contextId, statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).totalSize).toBe(0);
    // An updated task moves to the top: a paused one answered later.
    const paused = (await result('SendMessage', { message: message('A paused one. Short.', { contextId, metadata: { skillId: '@acme/editorial-review' } }) })).task;
    await result('SendMessage', summarize('After the pause. Yes.', { contextId }));
    await result('SendMessage', { message: message('', { taskId: paused.id, parts: [{ data: { approved: false } }] }) });
    expect((await result('ListTasks', { contextId, pageSize: 1 })).tasks[0].id).toBe(paused.id);
    // Another client sees none of them, and cannot use this client's page token.
    expect((await result('ListTasks', { contextId }, { bearer: otherToken })).totalSize).toBe(0);
    expect((await errorOf('ListTasks', { contextId, pageToken: first.nextPageToken }, { bearer: otherToken }))?.code).toBe(-32602);
  });

  it('refuses bad page sizes, page tokens, states, timestamps and history lengths with -32602', async () => {
    for (const params of [{ pageSize: 0 }, { pageSize: -1 }, { pageSize: 101 }, { pageSize: 1.5 }, { pageToken: 'invalid-token-xyz' }, { status: 'INVALID_STATUS' }, { statusTimestampAfter: '-1' }, { statusTimestampAfter: 'yesterday' }, { historyLength: -1 }]) {
      expect(await errorOf('ListTasks', params), JSON.stringify(params)).toMatchObject({ code: -32602 });
    }
    const all = await result('ListTasks', {});
    expect(all.pageSize).toBe(all.tasks.length);
    expect(all.tasks.length).toBeLessThanOrEqual(50);
  });
});

describe('one endpoint per agent and the default agent', () => {
  it('sends to the admin\'s default agent, else asks to name one; /a2a/<vendor>/<slug> serves its agent only', async () => {
    // The first agent installed became the default; an admin may choose none.
    expect(await services.settings.get(DEFAULT_AGENT_SETTING)).toBe('@acme/summarizer');
    await services.settings.set(admin, DEFAULT_AGENT_SETTING, null);
    expect(await errorOf('SendMessage', { message: message('Which agent? Unknown.') })).toMatchObject({ code: -32602, message: expect.stringMatching(/\/a2a\/<vendor>\/<slug>/) });
    await services.settings.set(admin, DEFAULT_AGENT_SETTING, '@acme/summarizer');
    expect((await result('SendMessage', { message: message('Default agent. Answers.') })).task.metadata.agent).toBe('@acme/summarizer');
    const reviewed = await result('SendMessage', { message: message('Per agent. Endpoint.') }, { path: '/a2a/acme/editorial-review', agent: '@acme/editorial-review' });
    expect(reviewed.task.metadata.agent).toBe('@acme/editorial-review');
    // Naming another agent there is refused; a task of another agent is not found there.
    expect((await errorOf('SendMessage', summarize('Mismatch. Refused.'), { path: '/a2a/acme/editorial-review', agent: '@acme/editorial-review' }))?.code).toBe(-32602);
    const missing = await call('SendMessage', { message: message('Nobody. Here.') }, { path: '/a2a/acme/nobody', agent: '@acme/nobody' });
    expect(missing.status).toBe(404);
    const card = (await (await services.handlers.agentCardV1(new Request(`${origin}/a2a/acme/summarizer/.well-known/agent-card.json`), '@acme/summarizer')).json()) as any;
    expect(card.skills.map((s: any) => s.id)).toEqual(['@acme/summarizer']);
    expect(card.supportedInterfaces[0].url).toMatch(/\/a2a\/acme\/summarizer$/);
    await services.settings.set(admin, DEFAULT_AGENT_SETTING, null);
  });

  it('scopes get, cancel, subscribe and list on /a2a/<vendor>/<slug> to its agent: another agent\'s task is not found there', async () => {
    const review = { path: '/a2a/acme/editorial-review', agent: '@acme/editorial-review' };
    const summarized = (await result('SendMessage', summarize('Not for review. Summarized.', { contextId: 'scoped' }))).task;
    const reviewed = (await result('SendMessage', { message: message('For review. Paused.', { contextId: 'scoped' }) }, review)).task;
    expect(reviewed.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await result('GetTask', { id: reviewed.id }, review)).id).toBe(reviewed.id);
    expect((await errorOf('GetTask', { id: summarized.id }, review))?.code).toBe(-32001);
    expect((await errorOf('CancelTask', { id: summarized.id }, review))?.code).toBe(-32001);
    const subscribed = JSON.parse(/^data: (.*)$/m.exec(await (await call('SubscribeToTask', { id: summarized.id }, { ...review, headers: { 'last-event-id': '0' } })).text())![1]!);
    expect(subscribed.error.code).toBe(-32001);
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
      const response = await call(method, { id: summarized.id }, review);
      const text = await response.text();
      expect(JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text).error.code, method).toBe(-32001);
    }
    const listed = await result('ListTasks', { contextId: 'scoped' }, review);
    expect(listed.tasks.map((task: { id: string }) => task.id)).toEqual([reviewed.id]);
    expect(listed.totalSize).toBe(1);
    // The host's endpoint still lists both.
    expect((await result('ListTasks', { contextId: 'scoped' })).totalSize).toBe(2);
  });
});
