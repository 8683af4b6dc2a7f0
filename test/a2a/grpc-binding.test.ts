import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, type CallInterceptor, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { fromJson, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { credentials, Metadata, status, type Client as GrpcClient, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { A2A_GRPC_METHODS, A2aGrpcClient } from '@service/core/a2a';
import { DEFAULT_AGENT_SETTING } from '@service/core/settings';
import { useTestDatabase } from '@service/core/testing';
import { testServices } from '@service/core/testing/services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAccessToken, startA2aHost } from '../helpers/a2a.ts';
import { checkJsSdkPushFlow } from '../helpers/js-sdk-push-flow.ts';
import { startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import type { RunningService } from '../helpers/service-process.ts';
import { selfSignedCertificate } from '../helpers/oauth-browser-client.ts';
import { artifactText, collectStream, sdkRequest } from '../helpers/js-sdk-v1.ts';

/**
 * The A2A 1.0 gRPC binding on a running service started with SERVICE_A2A_GRPC_PORT: the card
 * lists it, a grpc-js client of the normative proto runs every flow (send, stream, get, list,
 * cancel, subscribe after a dropped stream, a HITL answer), clients stay apart, the bearer is
 * checked; then the reference client, `@a2a-js/sdk` 1.3 with only its gRPC transport, does the same,
 * and its push flow: configs set, read, listed and deleted, and the notifications received.
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
let otherToken: string;
let grpcAddress: string;
let raw: GrpcClient & Record<string, (...args: unknown[]) => unknown>;
let receiver: PushReceiver;

const admin = { type: 'ui', id: 'admin', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await testServices(t.db).settings.set(admin, DEFAULT_AGENT_SETTING, '@acme/summarizer');
  // Each scripted step takes a while, so a stream can be dropped in its middle.
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', agents: ['summarizer', 'editorial-review'], env: { SERVICE_A2A_GRPC_PORT: '0', SERVICE_LLM_SCRIPTED_DELAY_MS: '300' } }));
  const other = await testServices(t.db).oauth.clients.register(admin, { name: 'another grpc client', allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] });
  otherToken = await fetchAccessToken(`${service.url}/api/oauth/token`, other.client.clientId, other.clientSecret);
  const card = (await (await fetch(`${service.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
  grpcAddress = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')?.url ?? '';
  raw = new A2aGrpcClient(grpcAddress, credentials.createInsecure()) as typeof raw;
  receiver = await startPushReceiver();
});

afterAll(async () => {
  raw?.close();
  await service?.stop();
  await receiver?.close();
});

type Json = Record<string, any>;

/** A method's request and response descriptors (the generated ones the service uses). */
const methodOf = (name: string) => A2A_GRPC_METHODS.get(name)!;

function metadataFor(bearer: string | null, extra: Record<string, string> = {}): Metadata {
  const metadata = new Metadata();
  if (bearer !== null) metadata.set('authorization', `Bearer ${bearer}`);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return metadata;
}

const encode = (schema: DescMessage, value: Json) => fromJson(schema, value as JsonValue);
const decode = (schema: DescMessage, value: unknown) => toJson(schema, value as never) as Json;

function call(name: string, request: Json, options: { bearer?: string | null } = {}): Promise<Json> {
  const method = methodOf(name);
  return new Promise((resolve, reject) => {
    raw[name]!(encode(method.input, request), metadataFor(options.bearer === undefined ? token : options.bearer), (error: ServiceError | null, response: unknown) => (error ? reject(error) : resolve(decode(method.output, response))));
  });
}

async function stream(name: string, request: Json, options: { bearer?: string | null; stopAfter?: number } = {}): Promise<Json[]> {
  const method = methodOf(name);
  const call = raw[name]!(encode(method.input, request), metadataFor(options.bearer === undefined ? token : options.bearer)) as ClientReadableStream<unknown>;
  const seen: Json[] = [];
  try {
    for await (const response of call) {
      seen.push(decode(method.output, response));
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

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'no error', (error: ServiceError) => error.code);
const message = (text: string, extra: Json = {}) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra } });

describe('the gRPC binding of A2A 1.0 on its own port', () => {
  it('is listed in the card as GRPC, at host:port on the service host, and per agent with its tenant', async () => {
    const port = Number(grpcAddress.split(':').at(-1));
    expect(grpcAddress).toBe(`${new URL(service.url).hostname}:${port}`);
    expect(port).not.toBe(Number(new URL(service.url).port));
    const one = (await (await fetch(`${service.url}/a2a/acme/summarizer/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Json[] };
    expect(one.supportedInterfaces).toContainEqual({ url: grpcAddress, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '@acme/summarizer' });
  });

  it('sends, gets, lists, streams, and resumes a dropped stream by subscribing', async () => {
    const contextId = randomUUID();
    const { task } = await call('SendMessage', message('gRPC clients work. They do.', { contextId }));
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, metadata: { agent: '@acme/summarizer' } });
    expect((await call('GetTask', { id: task.id, historyLength: 1 })).history).toHaveLength(1);
    expect((await call('ListTasks', { contextId, pageSize: 10 })).tasks.map((one: Json) => one.id)).toEqual([task.id]);

    const first = await stream('SendStreamingMessage', message('Stream me over gRPC. Then again.'), { stopAfter: 2 });
    const taskId = first[0]!.task.id as string;
    // The dropped stream's task goes on; subscribing gives its current state, then the rest to the end.
    const rest = await stream('SubscribeToTask', { id: taskId });
    expect(rest[0]).toMatchObject({ task: { id: taskId } });
    expect(rest.at(-1)).toMatchObject({ statusUpdate: { taskId, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect((await call('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('answers a HITL pause on one agent (its tenant), and cancels another task', async () => {
    const tenant = '@acme/editorial-review';
    const { task: paused } = await call('SendMessage', { tenant, ...message('A draft about gRPC clients. It is short.') });
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = { tenant, message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: paused.id, parts: [{ data: { resume: { screenId: 'approve-summary', values: { approved: true } } } }] } };
    expect((await call('SendMessage', answer)).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await codeOf(call('GetTask', { id: paused.id, tenant: '@acme/summarizer' }))).toBe(status.NOT_FOUND);

    const { task: second } = await call('SendMessage', { tenant, ...message('Another draft. To cancel.') });
    expect((await call('CancelTask', { tenant, id: second.id })).status.state).toBe('TASK_STATE_CANCELED');
    expect(await codeOf(call('CancelTask', { tenant, id: second.id }))).toBe(status.FAILED_PRECONDITION);
  });

  it("keeps clients apart, and needs a valid bearer in the metadata", async () => {
    const { task } = await call('SendMessage', message('Mine alone. Nobody else reads it.'));
    expect(await codeOf(call('GetTask', { id: task.id }, { bearer: otherToken }))).toBe(status.NOT_FOUND);
    expect(await codeOf(call('CancelTask', { id: task.id }, { bearer: otherToken }))).toBe(status.NOT_FOUND);
    expect(await codeOf(stream('SubscribeToTask', { id: task.id }, { bearer: otherToken }))).toBe(status.NOT_FOUND);
    expect(((await call('ListTasks', { pageSize: 100 }, { bearer: otherToken })).tasks ?? []).map((one: Json) => one.id)).not.toContain(task.id);
    expect(await codeOf(call('GetTask', { id: task.id }, { bearer: null }))).toBe(status.UNAUTHENTICATED);
    expect(await codeOf(call('GetTask', { id: task.id }, { bearer: `${token}x` }))).toBe(status.UNAUTHENTICATED);
  });

  it('answers UNIMPLEMENTED while A2A is switched off', async () => {
    const switches = testServices(t.db).featureFlags;
    await switches.set(admin, 'a2aHttpEnabled', false);
    try {
      await expect.poll(() => codeOf(call('ListTasks', {})), { timeout: 3000, interval: 100 }).toBe(status.UNIMPLEMENTED);
      expect(await codeOf(stream('SendStreamingMessage', message('Hello.')))).toBe(status.UNIMPLEMENTED);
    } finally {
      await switches.set(admin, 'a2aHttpEnabled', true);
    }
    await expect.poll(() => codeOf(call('ListTasks', {})), { timeout: 3000, interval: 100 }).toBe('no error');
  });
});

describe('@a2a-js/sdk 1.3 over gRPC', () => {
  // The SDK's gRPC transport sends service parameters as metadata: the bearer goes there.
  const bearer: CallInterceptor = {
    async before(args) {
      args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${token}` } };
    },
    async after() {},
  };
  const grpcOnly = () =>
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: new DefaultAgentCardResolver(),
        transports: [new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
        clientConfig: { interceptors: [bearer] },
      }),
    );

  let client: Client;
  beforeAll(async () => {
    client = await grpcOnly().createFromUrl(service.url);
  });

  it('discovers the card, picks GRPC, reads the extended card, sends, gets and lists', async () => {
    expect(client.transport.protocolName).toBe('GRPC');
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id).sort()).toEqual(['@acme/editorial-review', '@acme/summarizer']);
    const contextId = randomUUID();
    const result = await client.sendMessage(sdkRequest('SDK over gRPC works. It does.', { contextId }));
    if ('messageId' in result) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(result)).toContain('SDK over gRPC works');
    const read = await client.getTask({ tenant: '', id: result.id, historyLength: 1 });
    expect(read.history[0]!.role).toBe(Role.ROLE_AGENT);
    const listed = await client.listTasks({ tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 10, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false });
    expect(listed.tasks.map((task) => task.id)).toEqual([result.id]);
  });

  it('streams, then on one agent (its card’s tenant) subscribes to a pause, answers it and cancels another', async () => {
    const events = await collectStream(client.sendMessageStream(sdkRequest('Stream me. Please.')));
    expect(events[0]!.payload?.$case).toBe('task');
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const reviewer = await grpcOnly().createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    const paused = await reviewer.sendMessage(sdkRequest('A draft about gRPC clients. It is short.'));
    if ('messageId' in paused) throw new Error('expected a task');
    expect(paused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const seen = await collectStream(reviewer.resubscribeTask({ tenant: '', id: paused.id }));
    expect(seen.map((e) => e.payload?.$case)).toEqual(['task']);
    const answered = await reviewer.sendMessage(sdkRequest('', { taskId: paused.id, parts: [{ data: { approved: true, notes: 'Fine.' } }] }));
    if ('messageId' in answered) throw new Error('expected a task');
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const second = await reviewer.sendMessage(sdkRequest('Another draft. To cancel.'));
    if ('messageId' in second) throw new Error('expected a task');
    expect((await reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(reviewer.cancelTask({ tenant: '', id: second.id, metadata: undefined })).rejects.toMatchObject({ name: 'TaskNotCancelableError' });
  });

  it('reads the typed errors of unary and streaming methods', async () => {
    await expect(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(collectStream(client.resubscribeTask({ tenant: '', id: randomUUID() }))).rejects.toMatchObject({ name: 'TaskNotFoundError' });
  });

  it('sets, reads, lists and deletes push configs, one with a send, and the receiver gets each task’s notifications, signed and in order', async () => {
    const reviewer = await grpcOnly().createFromUrl(`${service.url}/a2a/acme/editorial-review/`);
    await checkJsSdkPushFlow({ host: client, reviewer, receiver, serviceUrl: service.url, pathPrefix: '/grpc' });
  });
});

describe('over TLS, with the reference client', () => {
  const tlsDb = useTestDatabase();
  let tlsService: RunningService | undefined;

  afterAll(async () => {
    await tlsService?.stop();
  });

  it('speaks TLS with the certificate the service is given; @a2a-js/sdk trusting it sends and reads a task, a plaintext client is refused', async () => {
    const certificate = selfSignedCertificate();
    const started = await startA2aHost(tlsDb.db, { mongodbUri: tlsDb.uri, scope: '@acme', env: { SERVICE_A2A_GRPC_PORT: '0', SERVICE_A2A_GRPC_TLS_CERT_FILE: certificate.certPath, SERVICE_A2A_GRPC_TLS_KEY_FILE: certificate.keyPath } });
    tlsService = started.service;
    const authorize: CallInterceptor = {
      async before(args) {
        args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, authorization: `Bearer ${started.token}` } };
      },
      async after() {},
    };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        cardResolver: new DefaultAgentCardResolver(),
        transports: [new GrpcTransportFactory({ grpcChannelCredentials: credentials.createSsl(Buffer.from(certificate.cert)) })],
        preferredTransports: ['GRPC'],
        clientConfig: { interceptors: [authorize] },
      }),
    );
    const client = await factory.createFromUrl(tlsService.url);
    const result = await client.sendMessage(sdkRequest('Over TLS. It works.'));
    if ('messageId' in result) throw new Error('expected a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await client.getTask({ tenant: '', id: result.id, historyLength: undefined })).id).toBe(result.id);

    const card = (await (await fetch(`${tlsService.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    const address = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!.url;
    const plaintext = new A2aGrpcClient(address, credentials.createInsecure()) as GrpcClient & Record<string, (...args: unknown[]) => unknown>;
    try {
      const method = methodOf('GetTask');
      const refused = await new Promise<ServiceError | null>((resolve) => plaintext.GetTask!(fromJson(method.input, { id: result.id }), metadataFor(started.token), { deadline: Date.now() + 5_000 }, (error: ServiceError | null) => resolve(error)));
      expect(refused?.code).toBeOneOf([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]);
    } finally {
      plaintext.close();
    }
  }, 60_000);
});
