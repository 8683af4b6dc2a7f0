import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_DENIED, assertAgentAccess } from '../auth/index.ts';
import type { Services } from '../index.ts';
import { EventSchema } from '@ag-ui/core/schemas';
import { AGUI_EXTENSION_URI, createA2aHandler } from './index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';

const t = useTestDatabase();
let services: Services;
let token: string;
let readOnlyToken: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;
const origin = 'http://127.0.0.1:3999';

beforeAll(async () => {
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme' });
  await installExampleAgents(t.db, '@acme');
  const full = await services.oauth.clients.register(admin, { name: 'peer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(full.client)).access_token;
  const limited = await services.oauth.clients.register(admin, { name: 'reader', allowedAgents: ['*'], permissions: ['list', 'read'] });
  readOnlyToken = (await services.oauth.tokens.issue(limited.client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
});

afterEach(() => {
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
});

let counter = 0;
const message = (text: string, extra: Record<string, unknown> = {}) => ({ kind: 'message', messageId: `m-${Date.now()}-${counter++}`, role: 'user', parts: [{ kind: 'text', text }], ...extra });

function rpc(body: unknown, headers: Record<string, string> = {}, bearer: string | null = token) {
  return services.handlers.a2a(
    new Request(`${origin}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

/** The data frames of an event stream; `id` is null for a frame without one (a task snapshot). */
async function sse(response: Response): Promise<{ id: number | null; data: any }[]> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expect(response.headers.get('x-accel-buffering')).toBe('no');
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => /^data: /m.test(frame))
    .map((frame) => {
      const id = /^id: (.*)$/m.exec(frame)?.[1];
      return { id: id === undefined ? null : Number(id), data: JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) };
    });
}

const summarizer = { skillId: '@acme/summarizer' };

describe('POST /api/a2a gating', () => {
  it('is 404 while SERVICE_A2A_HTTP_ENABLED is not true, read per request', async () => {
    process.env.SERVICE_A2A_HTTP_ENABLED = 'false';
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } })).status).toBe(404);
    delete process.env.SERVICE_A2A_HTTP_ENABLED;
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } })).status).toBe(404);
  });

  it('requires a valid bearer JWT', async () => {
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, {}, null)).status).toBe(401);
    const bad = await rpc({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }, {}, 'not.a.jwt');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('JSON-RPC errors, never a 5xx', () => {
  it.each([
    ['malformed JSON', '{"jsonrpc":', -32700],
    ['missing jsonrpc', { id: 1, method: 'tasks/get', params: { id: 'x' } }, -32600],
    ['not an object', '42', -32600],
    ['unknown method', { jsonrpc: '2.0', id: 1, method: 'tasks/explode', params: {} }, -32601],
    ['bad params', { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { parts: 'no' } } }, -32602],
    ['unknown task', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nope' } }, -32001],
  ])('%s', async (_name, body, code) => {
    const response = await rpc(body);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code } });
  });

  it.each(['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete'])('%s: a known method (task not found here), and -32003 where push is off', async (method) => {
    const body = { jsonrpc: '2.0', id: 3, method, params: { id: 'any-task', taskId: 'any-task', pushNotificationConfigId: 'c', pushNotificationConfig: { url: 'https://x.test/hook' } } };
    expect(await (await rpc(body)).json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32001 } });
    // The same operations without push configs (as a deployment that turned push off would wire them).
    const withoutPush = createA2aHandler({
      flags: services.flags,
      verifyToken: services.oauth.tokens.verify,
      card: services.agentCard,
      cardV1: async (agent) => (await services.cardV1(agent)) ?? {},
      defaultAgent: async () => null,
      startRun: services.useCases.runs.start,
      answerPause: services.useCases.runs.answer,
      runs: services.runs,
      eventLog: services.eventLog,
      executor: { cancel: services.useCases.runs.cancelById },
      logger: services.logger,
    });
    const off = await withoutPush(new Request(`${origin}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) }));
    expect(await off.json()).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32003 } });
  });

  it('refuses a body over the limit with 413', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('x'.repeat(1_100_000)) } });
    expect(response.status).toBe(413);
  });
});

describe('message/send and streaming', () => {
  it('runs a leaf agent to completion and answers with the Task', async () => {
    const response = await rpc({ jsonrpc: '2.0', id: 'a', method: 'message/send', params: { message: message('The cat sat on the mat. It was warm. Then it left.', { metadata: summarizer }) } });
    const body = (await response.json()) as any;
    expect(body.id).toBe('a');
    expect(body.result).toMatchObject({ kind: 'task', status: { state: 'completed' }, metadata: { agent: '@acme/summarizer' } });
    expect(body.result.artifacts[0].parts[0].text).toBe('[scripted] Summarize: The cat sat on the mat. It was warm.');
  });

  it('accepts the v1.0 and v0.3 method names', async () => {
    for (const method of ['SendMessage', 'message/send']) {
      const body = (await (await rpc({ jsonrpc: '2.0', id: 1, method, params: { message: message('Hi.', { metadata: summarizer }) } })).json()) as any;
      expect(body.result.status.state).toBe('completed');
    }
  });

  it('denies a client without execute permission exactly as an unauthorized UI user is denied', async () => {
    const body = (await (await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('Hi.', { metadata: summarizer }) } }, {}, readOnlyToken)).json()) as any;
    let uiDenial: unknown;
    try {
      assertAgentAccess({ type: 'ui', id: 'm', email: 'm@x.test', role: 'member' }, '@acme/summarizer', 'execute');
    } catch (error) {
      uiDenial = error;
    }
    expect(body.error).toEqual({ code: (uiDenial as { jsonRpcCode: number }).jsonRpcCode, message: ACCESS_DENIED });
    expect((uiDenial as Error).message).toBe(ACCESS_DENIED);
  });

  it('starts no second run for a retried Idempotency-Key', async () => {
    const before = await t.db.models.Run.countDocuments({});
    const headers = { 'idempotency-key': `idem-${Date.now()}` };
    const first = (await (await rpc({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('Once.', { metadata: summarizer }) } }, headers)).json()) as any;
    const second = (await (await rpc({ jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: message('Once.', { metadata: summarizer }) } }, headers)).json()) as any;
    expect(second.result.id).toBe(first.result.id);
    expect(await t.db.models.Run.countDocuments({})).toBe(before + 1);
  });

  it('streams SSE frames with ids and JSON-RPC results, and replays exactly after Last-Event-ID', async () => {
    const msg = message('Streaming is fun. Really.', { metadata: summarizer });
    const frames = await sse(await rpc({ jsonrpc: '2.0', id: 7, method: 'message/stream', params: { message: msg } }));
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    expect(frames.map((f) => f.data.result.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);
    expect(frames.every((f) => f.data.jsonrpc === '2.0' && f.data.id === 7)).toBe(true);
    expect(frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });

    const replay = await sse(await rpc({ jsonrpc: '2.0', id: 8, method: 'message/stream', params: { message: msg } }, { 'last-event-id': '2' }));
    expect(replay.map((f) => f.id)).toEqual([3, 4]);
    expect(replay.map((f) => f.data.result)).toEqual(frames.slice(2).map((f) => f.data.result));

    const taskId = frames[0]!.data.result.id as string;
    const resubscribed = await sse(await rpc({ jsonrpc: '2.0', id: 9, method: 'tasks/resubscribe', params: { id: taskId } }, { 'last-event-id': '3' }));
    // The snapshot carries no id; the ids that follow are strictly above Last-Event-ID.
    expect(resubscribed[0]).toMatchObject({ id: null, data: { result: { kind: 'task', id: taskId, status: { state: 'completed' } } } });
    expect(resubscribed.slice(1).map((f) => f.id)).toEqual([4]);

    const cancel = (await (await rpc({ jsonrpc: '2.0', id: 10, method: 'tasks/cancel', params: { id: taskId } })).json()) as any;
    expect(cancel.error.code).toBe(-32002);
  });
});

describe('stream ids and streaming errors', () => {
  const strictlyAbove = (ids: (number | null)[], after: number) => {
    const numbered = ids.filter((id): id is number => id !== null);
    expect(numbered.every((id, i) => id > (i === 0 ? after : numbered[i - 1]!)), JSON.stringify(ids)).toBe(true);
  };

  it('resubscribing after Last-Event-ID gives ids strictly above it, on a live and on a finished task', async () => {
    const slow = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_LLM_SCRIPTED_DELAY_MS: '400' });
    const call = (body: unknown, headers: Record<string, string> = {}) =>
      slow.handlers.a2a(new Request(`${origin}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) }));
    const started = (await (await call({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('Slowly. Please.', { metadata: { skillId: '@acme/summarizer' } }), configuration: { blocking: false } } })).json()) as any;
    const taskId = started.result.id as string;
    // Live: the task is working (events 1 and 2 stored); the client saw event 1.
    const live = await sse(await call({ jsonrpc: '2.0', id: 2, method: 'tasks/resubscribe', params: { id: taskId } }, { 'last-event-id': '1' }));
    expect(live[0]!.id).toBeNull();
    strictlyAbove(live.map((f) => f.id), 1);
    expect(live.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
    // Finished: ids after 2, snapshot first without an id.
    const finished = await sse(await call({ jsonrpc: '2.0', id: 3, method: 'tasks/resubscribe', params: { id: taskId } }, { 'last-event-id': '2' }));
    expect(finished.map((f) => f.id)).toEqual([null, 3, 4]);
  });

  it('answers a streaming method\'s error as one JSON-RPC error frame of an event stream', async () => {
    for (const method of ['tasks/resubscribe', 'message/stream', 'message/sendStreaming']) {
      const params = method === 'tasks/resubscribe' ? { id: '01890000-0000-7000-8000-000000000000' } : { message: { kind: 'message', role: 'robot', parts: [] } };
      const frames = await sse(await rpc({ jsonrpc: '2.0', id: 'e1', method, params }));
      expect(frames).toEqual([{ id: null, data: { jsonrpc: '2.0', id: 'e1', error: expect.objectContaining({ code: method === 'tasks/resubscribe' ? -32001 : -32602 }) } }]);
    }
    // Non-streaming methods keep plain JSON errors.
    const plain = await rpc({ jsonrpc: '2.0', id: 'e2', method: 'tasks/get', params: { id: '01890000-0000-7000-8000-000000000000' } });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('human in the loop', () => {
  it('pauses on the ask step with an INTERRUPT, rejects an invalid answer, and completes on a valid one', async () => {
    const frames = await sse(await rpc({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: message('A long draft. With details.', { metadata: { skillId: '@acme/editorial-review' } }) } }));
    const last = frames.at(-1)!.data.result;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
    expect(last.metadata.interrupt).toMatchObject({ type: 'INTERRUPT', screenId: 'approve-summary', schema: { type: 'object' } });
    const taskId = last.taskId as string;

    const resume = (values: unknown, screenId = 'approve-summary') =>
      rpc({ jsonrpc: '2.0', id: 2, method: 'message/stream', params: { message: message('', { taskId, parts: [{ kind: 'data', data: { resume: { screenId, values } } }] }) } });
    // A streaming method's error arrives as one JSON-RPC error frame of an event stream (as the SDK servers send it).
    const [invalid, ...more] = await sse(await resume({ approved: 'yes' }));
    expect(invalid).toMatchObject({ id: null, data: { jsonrpc: '2.0', id: 2, error: { code: -32602 } } });
    expect(more).toEqual([]);
    expect((await services.runs.get(taskId))!.state).toBe('input-required');

    const resumed = await sse(await resume({ approved: true, notes: 'Shorter.' }));
    expect(resumed[0]!.id).toBe(frames.at(-1)!.id! + 1);
    expect(resumed.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
    expect((await services.runs.get(taskId))!.progress.outputs).toMatchObject({ approval: { approved: true, notes: 'Shorter.' } });
  });
});

describe('POST /api/a2a/resume (AG-UI)', () => {
  const resume = (body: unknown, bearer: string | null = token) =>
    services.handlers.aguiResume(new Request(`${origin}/api/a2a/resume`, { method: 'POST', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: JSON.stringify(body) }));

  it('is 404 unless SERVICE_AGUI_EXTERNAL_ENABLED=true', async () => {
    delete process.env.SERVICE_AGUI_EXTERNAL_ENABLED;
    expect((await resume({ runId: 'x', resume: { interruptId: 'a', payload: {} } })).status).toBe(404);
  });

  it('resumes a paused run when on, validating the payload', async () => {
    process.env.SERVICE_AGUI_EXTERNAL_ENABLED = 'true';
    try {
      const frames = await sse(await rpc({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: message('Draft. Text.', { metadata: { skillId: '@acme/editorial-review' } }) } }));
      const runId = frames.at(-1)!.data.result.taskId as string;
      expect((await resume({ runId, resume: { interruptId: 'approve-summary', payload: {} } })).status).toBe(400);
      expect((await resume({ runId, resume: { interruptId: 'approve-summary', payload: { approved: true } } }, null)).status).toBe(401);
      const ok = await resume({ runId, resume: { interruptId: 'approve-summary', payload: { approved: true } } });
      expect(ok.status).toBe(202);
      await expect.poll(async () => (await services.runs.get(runId))!.state).toBe('completed');
    } finally {
      delete process.env.SERVICE_AGUI_EXTERNAL_ENABLED;
    }
  });
});

describe('AG-UI multiplex', () => {
  const stream = (skillId: string, headers: Record<string, string>) =>
    rpc({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: message('Multiplexed. Events.', { metadata: { skillId } }) } }, headers);
  const optIn = { 'a2a-extensions': AGUI_EXTENSION_URI };

  it('adds AG-UI events to each A2A event only when the flag is on and the client opted in', async () => {
    delete process.env.SERVICE_AGUI_EXTERNAL_ENABLED;
    expect((await sse(await stream('@acme/summarizer', optIn))).some((f) => f.data.result.metadata?.agui)).toBe(false);
    process.env.SERVICE_AGUI_EXTERNAL_ENABLED = 'true';
    try {
      expect((await sse(await stream('@acme/summarizer', {}))).some((f) => f.data.result.metadata?.agui)).toBe(false);
      const frames = await sse(await stream('@acme/summarizer', optIn));
      const agui = frames.flatMap((f) => f.data.result.metadata.agui as { type: string }[]);
      for (const event of agui) expect(EventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
      expect(agui.map((e) => e.type)).toEqual(['RUN_STARTED', 'STATE_DELTA', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
      expect(frames.map((f) => f.data.result.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update']);

      const paused = await sse(await stream('@acme/editorial-review', optIn));
      const last = (paused.at(-1)!.data.result.metadata.agui as any[]).at(-1);
      expect(last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'interrupt', interrupts: [{ id: 'approve-summary', responseSchema: { type: 'object' } }] } });
      expect(paused.flatMap((f) => f.data.result.metadata.agui).map((e: any) => e.type)).toContain('TOOL_CALL_START');
    } finally {
      delete process.env.SERVICE_AGUI_EXTERNAL_ENABLED;
    }
  });
});

describe('AgentCard', () => {
  it('has the spec fields and the A2A fields reference clients need', async () => {
    const card = (await (await services.handlers.agentCard(new Request(`${origin}/.well-known/agent.json`))).json()) as any;
    expect(card).toMatchObject({
      name: 'Acme Agents',
      url: `${origin}/api/a2a`,
      version: services.version,
      capabilities: { streaming: true },
      authentication: { tokenEndpoint: `${origin}/api/oauth/token` },
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: `${origin}/api/oauth/token` } } } },
    });
    const flow = card.skills.find((s: any) => s.id === '@acme/editorial-review');
    expect(Object.keys(flow).sort()).toEqual(
      ['agentDependencies', 'description', 'hitlScreens', 'id', 'inputModes', 'name', 'operativeVersion', 'outputModes', 'packageName', 'supportedVersions', 'tags', 'toolName', 'type'].sort(),
    );
    expect(flow).toMatchObject({ type: 'flow', agentDependencies: { '@acme/summarizer': '^1.0.0' }, hitlScreens: [{ id: 'approve-summary', schema: { type: 'object' } }] });
  });
});
