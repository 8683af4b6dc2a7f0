import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromBinary, fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { credentials, Metadata, status, type Client, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../index.ts';
import { installExampleAgents, recordMetrics, testServices, useTestDatabase } from '../../testing/index.ts';
import { A2A_GRPC_METHODS, A2aGrpcClient } from './definition.ts';
import { STATUS_DETAILS_KEY } from './errors.ts';
import { BadRequestSchema, ErrorInfoSchema } from './gen/google/rpc/error_details_pb.ts';
import { StatusSchema } from './gen/google/rpc/status_pb.ts';

/**
 * The gRPC binding in process: a grpc-js client of `lf.a2a.v1.A2AService` (the same generated
 * descriptor) against the service's binding on a free port, for the methods, the bearer in
 * metadata, isolation, the per-agent `tenant`, and the §5.4/§10.6 error statuses and details.
 */
const t = useTestDatabase();
let services: Services;
let client: Client & Record<string, (...args: unknown[]) => unknown>;
let token: string;
let otherToken: string;
const admin = { type: 'ui', id: 'admin', email: 'a@x.test', role: 'admin' } as const;

beforeAll(async () => {
  // Push configs here name a loopback webhook (nothing is delivered: the dispatcher does not run in this file).
  services = testServices(t.db, { SERVICE_VENDOR_SCOPE: '@acme', SERVICE_OUTBOUND_ALLOW_PRIVATE: 'true' });
  await installExampleAgents(t.db, '@acme');
  const mine = await services.oauth.clients.register(admin, { name: 'grpc peer', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  token = (await services.oauth.tokens.issue(mine.client)).access_token;
  const theirs = await services.oauth.clients.register(admin, { name: 'grpc other', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  otherToken = (await services.oauth.tokens.issue(theirs.client)).access_token;
  process.env.SERVICE_A2A_HTTP_ENABLED = 'true';
  const port = await services.a2aGrpc.listen('127.0.0.1', 0);
  client = new A2aGrpcClient(`127.0.0.1:${port}`, credentials.createInsecure()) as typeof client;
});

afterAll(async () => {
  client?.close();
  await services?.a2aGrpc.close(100);
});

type Json = Record<string, any>;

function metadataFor(bearer: string | null, extra: Record<string, string> = {}): Metadata {
  const metadata = new Metadata();
  if (bearer !== null) metadata.set('authorization', `Bearer ${bearer}`);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return metadata;
}

/** A unary call with a ProtoJSON request; the ProtoJSON response. */
function call(name: string, request: Json, options: { bearer?: string | null; metadata?: Record<string, string> } = {}): Promise<Json> {
  const method = A2A_GRPC_METHODS.get(name)!;
  return new Promise((resolve, reject) => {
    client[name]!(fromJson(method.input, request as JsonValue), metadataFor(options.bearer === undefined ? token : options.bearer, options.metadata), (error: ServiceError | null, response: unknown) => {
      if (error) reject(error);
      else resolve(toJson(method.output, response as never) as Json);
    });
  });
}

/** A server-streaming call: every StreamResponse as ProtoJSON, or the first `stopAfter` (then the call is cancelled). */
async function stream(name: string, request: Json, options: { bearer?: string | null; stopAfter?: number } = {}): Promise<Json[]> {
  const method = A2A_GRPC_METHODS.get(name)!;
  const call = client[name]!(fromJson(method.input, request as JsonValue), metadataFor(options.bearer === undefined ? token : options.bearer)) as ClientReadableStream<unknown>;
  const seen: Json[] = [];
  try {
    for await (const response of call) {
      seen.push(toJson(method.output, response as never) as Json);
      if (seen.length >= (options.stopAfter ?? Infinity)) {
        call.cancel();
        break;
      }
    }
  } catch (error) {
    if ((error as ServiceError).code !== status.CANCELLED) throw error;
  }
  return seen;
}

/** The gRPC error a call ends with, and the google.rpc details of its `grpc-status-details-bin`. */
async function failure(promise: Promise<unknown>): Promise<{ code: status; message: string; reasons: string[]; fields: string[] }> {
  const error = (await promise.then(() => expect.fail('expected the call to fail'), (e: unknown) => e)) as ServiceError;
  const bin = error.metadata?.get(STATUS_DETAILS_KEY)[0];
  const details = bin instanceof Buffer ? fromBinary(StatusSchema, bin).details : [];
  expect(details.every((detail) => detail.typeUrl.startsWith('type.googleapis.com/google.rpc.'))).toBe(true);
  const reasons = details.filter((d) => d.typeUrl.endsWith('.ErrorInfo')).map((d) => fromBinary(ErrorInfoSchema, d.value)).map((info) => `${info.domain}/${info.reason}`);
  const fields = details.filter((d) => d.typeUrl.endsWith('.BadRequest')).flatMap((d) => fromBinary(BadRequestSchema, d.value).fieldViolations.map((v) => v.field));
  return { code: error.code, message: error.details, reasons, fields };
}

let counter = 0;
const message = (text: string, extra: Json = {}) => ({ message: { messageId: `grpc-${Date.now()}-${counter++}`, role: 'ROLE_USER', parts: [{ text }], ...extra } });
const summarize = (text: string, extra: Json = {}) => message(text, { metadata: { skillId: '@acme/summarizer' }, ...extra });
const review = (text: string) => message(text, { metadata: { skillId: '@acme/editorial-review' } });

describe('the gRPC binding of A2A 1.0', () => {
  it('is listed in the card while it listens, with the agent as tenant on an agent’s card', async () => {
    const port = services.a2aGrpc.port();
    const card = (await (await services.handlers.agentCardV1(new Request('http://127.0.0.1/.well-known/agent-card.json'))).json()) as Json;
    expect(card.supportedInterfaces).toContainEqual({ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' });
    const one = (await (await services.handlers.agentCardV1(new Request('http://127.0.0.1/a2a/acme/summarizer/.well-known/agent-card.json'), '@acme/summarizer')).json()) as Json;
    expect(one.supportedInterfaces).toContainEqual({ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '@acme/summarizer' });
  });

  it('sends (waiting for the task), gets it with historyLength, lists it, and serves the extended card', async () => {
    const contextId = `grpc-${Date.now()}`;
    const { task } = await call('SendMessage', summarize('gRPC clients work. They do.', { contextId }));
    expect(task).toMatchObject({ contextId, status: { state: 'TASK_STATE_COMPLETED' }, metadata: { agent: '@acme/summarizer' } });
    expect(JSON.stringify(task.artifacts)).toContain('gRPC clients work');
    expect(task.status.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);

    const read = await call('GetTask', { id: task.id, historyLength: 1 });
    expect(read.history).toHaveLength(1);
    expect(read.history[0].role).toBe('ROLE_AGENT');

    const listed = await call('ListTasks', { contextId, pageSize: 10, includeArtifacts: false });
    expect(listed).toMatchObject({ pageSize: 1, totalSize: 1 });
    expect(listed.tasks.map((one: Json) => one.id)).toEqual([task.id]);
    expect(listed.tasks[0].artifacts).toBeUndefined();
    expect((await call('ListTasks', { contextId, status: 'TASK_STATE_WORKING' })).tasks).toBeUndefined();

    const card = await call('GetExtendedAgentCard', {});
    expect(card.skills.map((s: Json) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
    expect((await call('GetExtendedAgentCard', { tenant: '@acme/summarizer' })).skills.map((s: Json) => s.id)).toEqual(['@acme/summarizer']);
  });

  it('streams the task, then each event, to the final status', async () => {
    const seen = await stream('SendStreamingMessage', summarize('Stream me over gRPC. Exactly once.'));
    expect(Object.keys(seen[0]!)).toEqual(['task']);
    const taskId = seen[0]!.task.id as string;
    expect(seen.at(-1)).toMatchObject({ statusUpdate: { taskId, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(seen.some((one) => one.artifactUpdate?.taskId === taskId)).toBe(true);
  });

  it('pauses, subscribes, answers the pause, cancels another task, and refuses what the spec refuses', async () => {
    const { task: paused } = await call('SendMessage', review('A draft about gRPC clients. It is short.'));
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(paused.status.message.parts.find((p: Json) => p.data)?.data).toMatchObject({ interrupt: { type: 'INTERRUPT', screenId: 'approve-summary' } });
    const subscribed = await stream('SubscribeToTask', { id: paused.id }, { stopAfter: 1 });
    expect(subscribed).toEqual([{ task: expect.objectContaining({ id: paused.id, status: expect.objectContaining({ state: 'TASK_STATE_INPUT_REQUIRED' }) }) }]);

    const answer = { message: { messageId: `grpc-answer-${Date.now()}`, role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { resume: { screenId: 'approve-summary', values: { approved: true } } } }] } };
    const { task: answered } = await call('SendMessage', answer);
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');

    const { task: second } = await call('SendMessage', review('Another draft. To cancel.'));
    expect((await call('CancelTask', { id: second.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect(await failure(call('CancelTask', { id: second.id }))).toMatchObject({ code: status.FAILED_PRECONDITION, reasons: ['a2a-protocol.org/TASK_NOT_CANCELABLE'] });
    expect(await failure(stream('SubscribeToTask', { id: second.id }))).toMatchObject({ code: status.FAILED_PRECONDITION, reasons: ['a2a-protocol.org/UNSUPPORTED_OPERATION'] });
  });

  it("keeps clients apart and agents apart: another client's or agent's task is NOT_FOUND", async () => {
    const { task } = await call('SendMessage', summarize('Mine alone. Nobody else reads it.'));
    const attempts = [() => call('GetTask', { id: task.id }, { bearer: otherToken }), () => call('CancelTask', { id: task.id }, { bearer: otherToken }), () => stream('SubscribeToTask', { id: task.id }, { bearer: otherToken }), () => call('SendMessage', message('Continuing yours.', { taskId: task.id }), { bearer: otherToken })];
    for (const attempt of attempts) {
      expect(await failure(attempt())).toMatchObject({ code: status.NOT_FOUND, reasons: ['a2a-protocol.org/TASK_NOT_FOUND'] });
    }
    expect(((await call('ListTasks', { pageSize: 100 }, { bearer: otherToken })).tasks ?? []).map((one: Json) => one.id)).not.toContain(task.id);
    // The tenant names one agent: the summarizer's task is unknown to the reviewer.
    expect((await call('GetTask', { id: task.id, tenant: '@acme/summarizer' })).id).toBe(task.id);
    expect((await failure(call('GetTask', { id: task.id, tenant: '@acme/editorial-review' }))).code).toBe(status.NOT_FOUND);
    // An agent not on this host is no A2A error: NOT_FOUND without an ErrorInfo (clients must not read it as a missing task).
    expect(await failure(call('GetTask', { id: task.id, tenant: '@acme/nobody' }))).toMatchObject({ code: status.NOT_FOUND, reasons: [] });
  });

  it('needs a valid bearer token in the metadata before anything else', async () => {
    expect(await failure(call('GetTask', { id: 'whatever' }, { bearer: null }))).toMatchObject({ code: status.UNAUTHENTICATED, reasons: [] });
    expect((await failure(call('SendMessage', summarize('Hello.'), { bearer: 'not-a-token' }))).code).toBe(status.UNAUTHENTICATED);
    expect((await failure(stream('SendStreamingMessage', summarize('Hello.'), { bearer: 'x.y.z' }))).code).toBe(status.UNAUTHENTICATED);
  });

  it('sets, reads, lists and deletes push notification configs, the same ones the other bindings see; credentials are write-only', async () => {
    const hook = 'http://127.0.0.1:9/hook';
    const { task } = await call('SendMessage', { ...summarize('Hello.'), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: hook, id: 'from-send' } } });
    const created = await call('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'second', url: hook, token: 'shh', authentication: { scheme: 'Bearer', credentials: 'secret-credential' } });
    expect(created).toEqual({ id: 'second', taskId: task.id, url: hook, authentication: { scheme: 'Bearer' } });
    expect(await call('GetTaskPushNotificationConfig', { taskId: task.id, id: 'second' })).toEqual(created);
    const listed = await call('ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.configs.map((config: Json) => config.id).sort()).toEqual(['from-send', 'second']);
    expect(JSON.stringify(listed)).not.toMatch(/shh|secret-credential/);
    // The JSON-RPC binding reads the configs gRPC set.
    const overJsonRpc = await services.handlers.a2a(new Request('http://127.0.0.1/api/a2a', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTaskPushNotificationConfig', params: { taskId: task.id, id: 'second' } }) }));
    expect(((await overJsonRpc.json()) as Json).result).toEqual(created);
    expect(await call('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'second' })).toEqual({});
    expect(await failure(call('GetTaskPushNotificationConfig', { taskId: task.id, id: 'second' }))).toMatchObject({ code: status.NOT_FOUND });
    // Another client's task is not found, whatever the method.
    expect((await failure(call('ListTaskPushNotificationConfigs', { taskId: task.id }, { bearer: otherToken }))).code).toBe(status.NOT_FOUND);
  });

  it('maps invalid requests, versions and oversized messages to the spec statuses', async () => {
    expect(await failure(call('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }))).toMatchObject({ code: status.INVALID_ARGUMENT, fields: ['message.parts'] });
    expect((await failure(call('GetTask', { id: '' }))).code).toBe(status.INVALID_ARGUMENT);
    expect(await failure(call('SendMessage', summarize('Hello.'), { metadata: { 'a2a-version': '0.3' } }))).toMatchObject({ code: status.FAILED_PRECONDITION, reasons: ['a2a-protocol.org/VERSION_NOT_SUPPORTED'] });
    expect(await failure(call('CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: 'http://127.0.0.1:9/hook' }))).toMatchObject({ code: status.NOT_FOUND, reasons: ['a2a-protocol.org/TASK_NOT_FOUND'] });
    expect((await failure(call('SendMessage', summarize('x'.repeat(1100 * 1024))))).code).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('records each call in rpc.server.call.duration by method and status, and counts a stream as open until it ends', async () => {
    const reader = recordMetrics();
    try {
      await call('SendMessage', summarize('Measured.'));
      await failure(call('GetTask', { id: 'no-such-task' }));
      const seen = await stream('SendStreamingMessage', summarize('Measured stream.'));
      expect(seen.length).toBeGreaterThan(1);
      const rpc = { 'rpc.system': 'grpc', 'rpc.service': 'lf.a2a.v1.A2AService' };
      // The server records a stream's end just after its last message goes out.
      await expect.poll(() => reader.points('rpc.server.call.duration')).toEqual(
        expect.arrayContaining([
          { attributes: { ...rpc, 'rpc.method': 'SendMessage', 'rpc.grpc.status_code': status.OK }, value: { count: 1, sum: expect.any(Number) } },
          { attributes: { ...rpc, 'rpc.method': 'GetTask', 'rpc.grpc.status_code': status.NOT_FOUND }, value: { count: 1, sum: expect.any(Number) } },
          { attributes: { ...rpc, 'rpc.method': 'SendStreamingMessage', 'rpc.grpc.status_code': status.OK }, value: { count: 1, sum: expect.any(Number) } },
        ]),
      );
      await expect.poll(() => reader.points('service.sse.streams.open')).toEqual([{ attributes: { 'service.stream.kind': 'a2a-grpc' }, value: 0 }]);
    } finally {
      await reader.stop();
    }
  });

  it('leaves the card once it stops listening', async () => {
    await services.a2aGrpc.close(100);
    expect(services.a2aGrpc.port()).toBeNull();
    const card = (await (await services.handlers.agentCardV1(new Request('http://127.0.0.1/.well-known/agent-card.json'))).json()) as Json;
    expect(card.supportedInterfaces.map((i: Json) => i.protocolBinding)).toEqual(['JSONRPC', 'JSONRPC', 'HTTP+JSON']);
  });

  it('speaks TLS with the certificate it is given: a client that trusts it is answered, a plaintext one is not', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'grpc-tls-'));
    const [certPath, keyPath] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const certChain = readFileSync(certPath);
    const port = await services.a2aGrpc.listen('127.0.0.1', 0, { certChain, privateKey: readFileSync(keyPath) });
    const plaintext = client;
    try {
      client = new A2aGrpcClient(`127.0.0.1:${port}`, credentials.createSsl(certChain)) as typeof client;
      const { task } = await call('SendMessage', summarize('Over TLS.'));
      expect((await call('GetTask', { id: task.id })).id).toBe(task.id);
      client.close();
      client = new A2aGrpcClient(`127.0.0.1:${port}`, credentials.createInsecure(), { 'grpc.initial_reconnect_backoff_ms': 100 }) as typeof client;
      expect((await failure(call('GetTask', { id: task.id }))).code).toBe(status.UNAVAILABLE);
    } finally {
      client.close();
      client = plaintext;
      await services.a2aGrpc.close(100);
    }
  });
});
