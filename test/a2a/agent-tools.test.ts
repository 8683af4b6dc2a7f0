import { randomBytes, randomUUID } from 'node:crypto';
import { credentials, Metadata, type Client as GrpcClient, type ServiceError } from '@grpc/grpc-js';
import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { A2A_GRPC_METHODS, A2aGrpcClient } from '@service/core/a2a';
import { CLASSIFIER_STEPS, installFlowAgent, useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { stepKeyOf, toolCallKeyOf } from '@service/core/runs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, installExampleAgents } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { readSseFrames } from '../helpers/sse.ts';
import { A2aMultiplexAgent } from '../helpers/agui-agent.ts';

/**
 * Agents that act, on two built services in the default layout (each with its agent runtime
 * process): A's researcher has an LLM step with tools (its own summarizer, B's summarizer, and the
 * marketplace search primitive) and is called over every A2A binding; calls that need approval
 * pause the run and are approved, denied or changed over JSON-RPC, HTTP+JSON and gRPC.
 */
const dbA = useTestDatabase();
const dbB = useTestDatabase();
const masterKeyA = randomBytes(32).toString('base64');
let a: RunningService;
let b: RunningService;
let token: string;
let grpc: GrpcClient & Record<string, (...args: unknown[]) => unknown>;
const adminA = { type: 'ui', id: 'admin-a', email: 'admin@acme.test', role: 'admin' } as const;
const adminB = { type: 'ui', id: 'admin-b', email: 'admin@globex.test', role: 'admin' } as const;
const RESEARCHER = '@acme/researcher';

type Json = Record<string, any>;

beforeAll(async () => {
  await installExampleAgents(dbB.db, '@globex');
  await installExampleAgents(dbA.db, '@acme');
  await installFlowAgent(dbA.db, '@acme', RESEARCHER, [{ kind: 'llm', id: 'research', prompt: '{{input}}' }], [], {
    skills: ['@acme/summarizer', '@globex/summarizer'],
    tools: [{ tool: '@globex/summarizer', approval: 'always' }, { tool: 'service_extensions_search', approval: 'never' }],
    maxToolRounds: 4,
  });
  // A classifier: a structured answer (an output schema) that a `when` branches on.
  await installFlowAgent(dbA.db, '@acme', '@acme/classifier', CLASSIFIER_STEPS);
  [a, b] = await Promise.all([
    startService({ mongodbUri: dbA.uri, env: { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKeyA, SERVICE_A2A_HTTP_ENABLED: 'true', SERVICE_A2A_GRPC_PORT: '0', SERVICE_AGUI_EXTERNAL_ENABLED: 'true' } }),
    startService({ mongodbUri: dbB.uri, env: { SERVICE_VENDOR_SCOPE: '@globex', SERVICE_A2A_HTTP_ENABLED: 'true' } }),
  ]);
  const { client: forA, clientSecret: secretForA } = await testServices(dbB.db).oauth.clients.register(adminB, { name: 'acme', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  const localA = testServices(dbA.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_MASTER_KEY: masterKeyA, SERVICE_BASE_URL: a.url });
  await localA.peers.register(adminA, { id: 'globex', name: 'Globex', baseUrl: b.url, clientId: forA.clientId, clientSecret: secretForA });
  const { client, clientSecret } = await localA.oauth.clients.register(adminA, { name: 'caller', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = await fetchAccessToken(`${a.url}/api/oauth/token`, client.clientId, clientSecret);
  for (let waited = 0; !/agent runtime ready/.test(a.output()) && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  const card = (await (await fetch(`${a.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
  grpc = new A2aGrpcClient(card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!.url, credentials.createInsecure()) as typeof grpc;
});

afterAll(async () => {
  grpc?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const headers = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}`, ...extra });
const userMessage = (text: string, extra: Json = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: RESEARCHER }, ...extra });
const approval = (taskId: string, screenId: string, values: Json) => ({ messageId: randomUUID(), role: 'ROLE_USER', taskId, parts: [{ data: { resume: { screenId, values } } }] });

async function rpc(method: string, params: Json, extra: Record<string, string> = {}): Promise<Json> {
  const response = await fetch(`${a.url}/api/a2a`, { method: 'POST', headers: headers(extra), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: Json; error?: Json };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result!;
}

/** The data part of a v1.0 status message that holds `key`, if any. */
const dataPart = (status: Json | undefined, key: string) => (status?.message?.parts ?? []).map((part: Json) => part.data).find((data: Json | undefined) => data && key in data)?.[key];

/** B's runs of its summarizer for a text, as B stored them (their message ids included). */
async function onB(text: string) {
  return (await dbB.db.models.Run.find({ agent: '@globex/summarizer' }).lean()).filter((row) => (JSON.parse(row.input as string) as { parts: { text: string }[] }).parts[0]?.text === text).map((row) => ({ id: row._id, messageId: (JSON.parse(row.input as string) as { id: string }).id, state: row.state }));
}

describe('an agent whose LLM step calls tools, on the built service with its runtime process', () => {
  it('calls its own skill and a primitive, streaming each call with its arguments and result to a client that asked for them', async () => {
    const text = ['use acme__summarizer with {"input":"Local skill. It answers."}', 'use service_extensions_search with {"query":"editorial"}'].join('\n');
    const response = await fetch(`${a.url}/api/a2a`, {
      method: 'POST',
      headers: headers({ 'a2a-extensions': 'urn:service:a2a-extension:tool-calls:v1' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage(text) } }),
    });
    const updates = (await readSseFrames(response)).map((frame) => (frame.data as { result: Json }).result.statusUpdate).filter(Boolean) as Json[];
    const said = updates.map((update) => update.status.message?.parts?.find((part: Json) => 'text' in part)?.text);
    expect(said).toEqual(expect.arrayContaining(['Calling @acme/summarizer', '@acme/summarizer answered', 'Calling service_extensions_search', 'service_extensions_search answered']));
    const calls = updates.map((update) => dataPart(update.status, 'toolCall')).filter(Boolean);
    const results = updates.map((update) => dataPart(update.status, 'toolResult')).filter(Boolean);
    expect(calls).toEqual([
      { id: '0.0.0', tool: '@acme/summarizer', kind: 'agent', arguments: { input: 'Local skill. It answers.' } },
      { id: '0.1.0', tool: 'service_extensions_search', kind: 'primitive', arguments: { query: 'editorial' } },
    ]);
    expect(results[0]).toMatchObject({ id: '0.0.0', outcome: 'ok', output: '[scripted] Summarize: Local skill. It answers.' });
    expect(results[1]).toMatchObject({ id: '0.1.0', outcome: 'ok', output: [expect.objectContaining({ packageName: '@acme/editorial-review' })] });
    expect(updates.at(-1)!.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('names no arguments or results to a client that did not ask, only the tool', async () => {
    const response = await fetch(`${a.url}/api/a2a`, { method: 'POST', headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('use service_extensions_search with {"query":"secret"}') } }) });
    const updates = (await readSseFrames(response)).map((frame) => (frame.data as { result: Json }).result.statusUpdate).filter(Boolean) as Json[];
    expect(updates.some((update) => update.status.message?.parts?.some((part: Json) => part.text === 'Calling service_extensions_search'))).toBe(true);
    expect(JSON.stringify(updates)).not.toContain('"query":"secret"');
  });

  it("pauses before calling B's agent; approved over JSON-RPC, B runs it once, keyed by the call", async () => {
    const text = 'Peer tool. Approved over JSON-RPC.';
    const { task } = await rpc('SendMessage', { message: userMessage(`use globex__summarizer with {"input":"${text}"}`) });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const interrupt = dataPart(task.status, 'interrupt');
    expect(interrupt).toMatchObject({ type: 'INTERRUPT', screenId: 'approve-0.0.0', title: 'Allow @globex/summarizer to run?', tool: { callId: '0.0.0', tool: '@globex/summarizer', kind: 'agent', arguments: { input: text } } });
    expect(await onB(text)).toEqual([]);

    const { task: done } = await rpc('SendMessage', { message: approval(task.id, interrupt.screenId, { approved: true }) });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const ran = await onB(text);
    expect(ran).toEqual([{ id: expect.any(String), messageId: toolCallKeyOf(stepKeyOf(task.id, 0, 'research'), 0, 0), state: 'completed' }]);
    expect(done.artifacts[0].parts[0].text).toBe(`[scripted] globex__summarizer answered: [scripted] Summarize: ${text}`);
  });

  it('is denied over HTTP+JSON: B never hears of it and the model is told', async () => {
    const text = 'Peer tool. Denied over REST.';
    const sent = await fetch(`${a.url}/api/a2a/message:send`, { method: 'POST', headers: headers(), body: JSON.stringify({ message: userMessage(`use globex__summarizer with {"input":"${text}"}`) }) });
    const { task } = (await sent.json()) as { task: Json };
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await fetch(`${a.url}/api/a2a/message:send`, { method: 'POST', headers: headers(), body: JSON.stringify({ message: approval(task.id, 'approve-0.0.0', { approved: false, reason: 'Not from this peer.' }) }) });
    const { task: done } = (await answered.json()) as { task: Json };
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts[0].parts[0].text).toBe('[scripted] globex__summarizer was not allowed: Not from this peer.');
    expect(await onB(text)).toEqual([]);
  });

  it('is changed over gRPC: B runs it with the arguments the human gave', async () => {
    const asked = 'Peer tool. Before the change.';
    const changed = 'Peer tool. Changed over gRPC.';
    const { task } = await grpcCall('SendMessage', { message: userMessage(`use globex__summarizer with {"input":"${asked}"}`) });
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { task: done } = await grpcCall('SendMessage', { message: approval(task.id, 'approve-0.0.0', { approved: true, arguments: { input: changed } }) });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await onB(asked)).toEqual([]);
    expect(await onB(changed)).toHaveLength(1);
  });
});

describe('a structured answer on the built service', () => {
  it('answers an LLM step with a value of its output schema, which a `when` reads', async () => {
    for (const [said, expected] of [['answer with {"urgent":true,"topic":"outage"}', 'Urgent: outage'], ['answer with {"urgent":false,"topic":"typo"}', 'Later: typo']] as const) {
      const { task } = await rpc('SendMessage', { message: { ...userMessage(said), metadata: { skillId: '@acme/classifier' } } });
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts[0].parts[0].text).toBe(expected);
    }
  });
});

describe('the same tool calls as AG-UI events, read by @ag-ui/client', () => {
  it('shows a call and its result as TOOL_CALL_START/ARGS/END and TOOL_CALL_RESULT in the client\'s messages', async () => {
    const agent = new A2aMultiplexAgent({ baseUrl: a.url, token, skillId: RESEARCHER });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'use service_extensions_search with {"query":"editorial"}' });
    await agent.runAgent();
    const types = agent.seen.map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'TOOL_CALL_RESULT', 'RUN_FINISHED']));
    // The run's status reached the client's state through STATE_DELTA patches it could apply.
    expect(agent.state).toEqual({ status: 'working' });
    const withCall = agent.messages.find((message) => message.role === 'assistant' && (message as { toolCalls?: unknown[] }).toolCalls?.length) as { toolCalls: { id: string; function: { name: string; arguments: string } }[] } | undefined;
    expect(withCall!.toolCalls[0]!.function).toEqual({ name: 'service_extensions_search', arguments: '{"query":"editorial"}' });
    const result = agent.messages.find((message) => message.role === 'tool') as { toolCallId: string; content: string } | undefined;
    expect(result!.toolCallId).toBe(withCall!.toolCalls[0]!.id);
    expect(JSON.parse(result!.content)).toEqual([expect.objectContaining({ packageName: '@acme/editorial-review' })]);
  });

  it('pauses with a tool-approval interrupt naming the call, and goes on once resumed through /api/a2a/resume', async () => {
    const text = 'Peer tool. Approved through AG-UI.';
    const agent = new A2aMultiplexAgent({ baseUrl: a.url, token, skillId: RESEARCHER });
    agent.addMessage({ id: randomUUID(), role: 'user', content: `use globex__summarizer with {"input":"${text}"}` });
    await agent.runAgent();
    expect(agent.pendingInterrupts).toEqual([expect.objectContaining({ id: 'approve-0.0.0', reason: 'tool_approval', toolCallId: `${agent.taskId}:0.0.0`, responseSchema: expect.objectContaining({ required: ['approved'] }) })]);
    expect(await onB(text)).toEqual([]);
    await agent.runAgent({ resume: [{ interruptId: 'approve-0.0.0', status: 'resolved', payload: { approved: true } }] });
    expect(agent.pendingInterrupts).toEqual([]);
    expect(agent.seen.map((event) => event.type)).toContain('TOOL_CALL_RESULT');
    expect(await onB(text)).toHaveLength(1);
  });
});

function grpcCall(name: string, request: Json): Promise<Json> {
  const method = A2A_GRPC_METHODS.get(name)!;
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve, reject) => {
    grpc[name]!(fromJson(method.input, request as JsonValue), metadata, (error: ServiceError | null, response: unknown) => (error ? reject(error) : resolve(toJson(method.output, response as never) as Json)));
  });
}

