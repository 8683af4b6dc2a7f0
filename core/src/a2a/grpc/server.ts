import { once } from 'node:events';
import { wantsToolDetails } from '../tool-details.ts';
import { fromJson, toJson, type DescMessage, type DescMethod, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { Server, ServerCredentials, status as GrpcStatus, type Metadata, type ServerUnaryCall, type ServerWritableStream, type UntypedServiceImplementation, type sendUnaryData } from '@grpc/grpc-js';
import type { AgentAccessActor } from '../../auth/index.ts';
import { DomainError } from '../../errors/index.ts';
import { bearerOf } from '../../http/index.ts';
import { authenticateBearer } from '../authenticate.ts';
import { checkVersion10 } from '../versions.ts';
import { createA2aOperations, type A2aOperations } from '../operations.ts';
import { taskIdV1Schema, taskToV1 } from '../protocol-v1.ts';
import { extendedCardV1, listTasksV1, params, pushConfigV1, sendInputV1, sendStreamingV1, subscribeV1 } from '../server-v1.ts';
import { MAX_A2A_BODY_BYTES, type A2aServerDeps } from '../server.ts';
import { recordRpcServerCall, streamOpened } from '../../telemetry/index.ts';
import { A2A_GRPC_METHODS, A2A_GRPC_SERVICE, A2A_GRPC_SERVICE_NAME } from './definition.ts';
import { grpcErrorOf, GrpcStatusError } from './errors.ts';

type Any = MessageShape<DescMessage>;

/** What one call carries besides its message: who calls, for which agent, with which service parameters. */
interface CallContext {
  actor: AgentAccessActor;
  agent: string | null;
  metadata: Metadata;
  signal: AbortSignal;
}

/** One metadata value as a string (binary `-bin` keys and absent keys are null). */
function metadataValue(metadata: Metadata, key: string): string | null {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : null;
}

/** A2A-Version (a service parameter, in metadata on this binding): absent or 1.0; the proto is 1.0's. */
const checkVersion = (metadata: Metadata) => checkVersion10(metadataValue(metadata, 'a2a-version')?.trim(), 'gRPC');

/** A request message as the ProtoJSON the v1.0 steps read (enum names, RFC 3339 timestamps, Struct as JSON). */
const jsonOf = (method: DescMethod, request: Any) => toJson(method.input, request) as Record<string, unknown>;
/** The ProtoJSON the v1.0 steps write as the method's response message. Fields the proto lacks (the v0.3 `url` of a card) are left out. */
const messageOf = (schema: DescMessage, value: unknown) => fromJson(schema, value as JsonValue, { ignoreUnknownFields: true });

const PUSH_METHODS = new Set(['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']);

/** The unary methods, on the one operations module: a ProtoJSON request in, a ProtoJSON response out. */
async function unary(ops: A2aOperations, name: string, input: Record<string, unknown>, context: CallContext): Promise<unknown> {
  const { actor, agent } = context;
  switch (name) {
    case 'SendMessage': {
      const { internal, returnImmediately, historyLength } = sendInputV1(input);
      const idempotencyKey = metadataValue(context.metadata, 'idempotency-key')?.slice(0, 200) || null;
      const run = await ops.sendAndWait(actor, internal, idempotencyKey, agent, { returnImmediately, signal: context.signal });
      return { task: taskToV1(run, { historyLength }) };
    }
    case 'GetTask': {
      const p = params(taskIdV1Schema, input);
      return taskToV1(await ops.visibleRun(actor, p.id, 'read', agent), { historyLength: p.historyLength });
    }
    case 'CancelTask': {
      const run = await ops.visibleRun(actor, params(taskIdV1Schema, input).id, 'execute', agent);
      return taskToV1(await ops.cancel(run.id));
    }
    case 'ListTasks':
      return listTasksV1(ops, actor, input, agent);
    case 'GetExtendedAgentCard':
      return extendedCardV1(ops, actor, agent);
    default:
      if (PUSH_METHODS.has(name)) return pushConfigV1(ops, name, input, actor, agent);
      throw new DomainError('METHOD_NOT_FOUND', `Method not found: ${name}`);
  }
}

/** The server-streaming methods: the first StreamResponse (a subscription's current Task), then the task's events as they come. */
async function streaming(ops: A2aOperations, name: string, input: Record<string, unknown>, context: CallContext): Promise<{ first?: unknown; responses: (signal: AbortSignal) => AsyncIterable<{ response: unknown }> }> {
  const { actor, agent } = context;
  const toolDetails = wantsToolDetails(metadataValue(context.metadata, 'a2a-extensions'));
  if (name === 'SendStreamingMessage') {
    const idempotencyKey = metadataValue(context.metadata, 'idempotency-key')?.slice(0, 200) || null;
    return sendStreamingV1(ops, actor, input, { idempotencyKey, agent, resumeFrom: null, toolDetails });
  }
  const { snapshot, responses } = await subscribeV1(ops, actor, params(taskIdV1Schema, input).id, { agent, resumeFrom: null, toolDetails });
  return { first: snapshot, responses };
}

/** Writes each message, waiting while the client's window is full; stops when the call ends. */
async function writeAll(call: ServerWritableStream<Any, Any>, messages: AsyncIterable<Any>, signal: AbortSignal): Promise<void> {
  for await (const message of messages) {
    if (signal.aborted) return;
    if (!call.write(message)) await once(call, 'drain', { signal });
  }
}

export interface A2aGrpcServer {
  /** Serves on `host:port` (0: any free port); resolves with the port bound. */
  /** `tls`: the certificate chain and private key (PEM) to speak TLS with; without it, plaintext HTTP/2. */
  listen(host: string, port: number, tls?: { certChain: Buffer; privateKey: Buffer }): Promise<number>;
  /** The port served, or null before `listen` and after `close`. */
  port(): number | null;
  /** Stops taking calls, lets running ones end for `graceMs`, then cuts the rest (open streams). */
  close(graceMs?: number): Promise<void>;
}

/**
 * The A2A 1.0 gRPC binding (`lf.a2a.v1.A2AService`, spec §10) on its own port: the operations of
 * the JSON-RPC and HTTP+JSON bindings (one operations module, one run model), requests and
 * responses translated to and from the v1.0 ProtoJSON shapes by @bufbuild/protobuf. Each call is
 * refused while the A2A switch is off, then needs `authorization: Bearer <token>` in its metadata,
 * checked by the same verifier as the other bindings before anything else is done. A request's
 * `tenant` names one agent (as `/a2a/<vendor>/<slug>` does): its tasks only.
 */
export function createA2aGrpcServer(deps: A2aServerDeps): A2aGrpcServer {
  const ops = createA2aOperations(deps);
  let server: Server | null = null;
  let bound: number | null = null;

  /** The caller and the agent a call is for, or the error that ends it. */
  async function admit(metadata: Metadata, tenant: unknown): Promise<{ actor: AgentAccessActor; agent: string | null }> {
    if (!(await deps.flags()).a2aHttpEnabled) throw new GrpcStatusError(GrpcStatus.UNIMPLEMENTED, 'A2A is switched off on this host');
    const actor = await authenticateBearer(deps.verifyToken, bearerOf(metadataValue(metadata, 'authorization')), 'the call metadata (authorization)');
    const agent = typeof tenant === 'string' && tenant !== '' ? tenant : null;
    if (agent && !(await deps.card()).skills.some((skill) => skill.id === agent)) throw new GrpcStatusError(GrpcStatus.NOT_FOUND, `No agent ${agent.slice(0, 200)} on this host`);
    checkVersion(metadata);
    return { actor, agent };
  }

  const fail = (error: unknown) => grpcErrorOf(error, deps.logger);

  /** Records a call's duration and status when it ends (a stream when it is closed, whichever way). */
  function timed(method: DescMethod) {
    const started = performance.now();
    return (statusCode: number) => recordRpcServerCall({ service: A2A_GRPC_SERVICE_NAME, method: method.name, statusCode }, (performance.now() - started) / 1000);
  }

  function handler(method: DescMethod) {
    if (method.methodKind === 'server_streaming') {
      return (call: ServerWritableStream<Any, Any>) => {
        const ended = timed(method);
        const closed = streamOpened('a2a-grpc');
        const aborted = new AbortController();
        call.on('cancelled', () => aborted.abort());
        let statusCode: number = GrpcStatus.OK;
        void (async () => {
          const input = jsonOf(method, call.request);
          const { actor, agent } = await admit(call.metadata, input.tenant);
          const { first, responses } = await streaming(ops, method.name, input, { actor, agent, metadata: call.metadata, signal: aborted.signal });
          async function* messages() {
            if (first !== undefined) yield messageOf(method.output, first);
            for await (const { response } of responses(aborted.signal)) yield messageOf(method.output, response);
          }
          await writeAll(call, messages(), aborted.signal);
          call.end();
        })().catch((error: unknown) => {
          if (aborted.signal.aborted) {
            statusCode = GrpcStatus.CANCELLED;
            return;
          }
          const status = fail(error);
          statusCode = status.code;
          call.emit('error', status);
        }).finally(() => {
          if (aborted.signal.aborted && statusCode === GrpcStatus.OK) statusCode = GrpcStatus.CANCELLED;
          aborted.abort();
          closed();
          ended(statusCode);
        });
      };
    }
    return (call: ServerUnaryCall<Any, Any>, callback: sendUnaryData<Any>) => {
      const ended = timed(method);
      const aborted = new AbortController();
      call.on('cancelled', () => aborted.abort());
      void (async () => {
        const input = jsonOf(method, call.request);
        const { actor, agent } = await admit(call.metadata, input.tenant);
        return messageOf(method.output, await unary(ops, method.name, input, { actor, agent, metadata: call.metadata, signal: aborted.signal }));
      })().then(
        (response) => {
          ended(GrpcStatus.OK);
          callback(null, response);
        },
        (error: unknown) => {
          const status = fail(error);
          // A call the client gave up on ends as cancelled, whatever the work it interrupted threw.
          ended(aborted.signal.aborted ? GrpcStatus.CANCELLED : status.code);
          callback(status);
        },
      );
    };
  }

  const implementation: UntypedServiceImplementation = Object.fromEntries([...A2A_GRPC_METHODS].map(([name, method]) => [name, handler(method)]));

  return {
    async listen(host, port, tls) {
      if (server) throw new Error('The A2A gRPC server is already listening');
      const next = new Server({
        // The same request limit as the HTTP bindings' 1 MiB body; refused before it is decoded.
        'grpc.max_receive_message_length': MAX_A2A_BODY_BYTES,
        'grpc.max_concurrent_streams': 100,
        'grpc.keepalive_time_ms': 60_000,
      });
      next.addService(A2A_GRPC_SERVICE, implementation);
      const address = host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
      const credentials = tls ? ServerCredentials.createSsl(null, [{ cert_chain: tls.certChain, private_key: tls.privateKey }], false) : ServerCredentials.createInsecure();
      bound = await new Promise<number>((resolve, reject) => next.bindAsync(address, credentials, (error, actual) => (error ? reject(error) : resolve(actual))));
      server = next;
      return bound;
    },
    port: () => bound,
    async close(graceMs = 5_000) {
      const closing = server;
      server = null;
      bound = null;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => {
          closing.forceShutdown();
          resolve();
        }, graceMs);
        closing.tryShutdown(() => {
          clearTimeout(cut);
          resolve();
        });
      });
    },
  };
}
