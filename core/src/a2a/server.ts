import { type z } from 'zod';
import type { AgentAccessActor as AuthenticatedClientLike } from '../auth/index.ts';
import type { FeatureFlags } from '../config/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { taskOf } from '../runs/index.ts';
import { parseEnvelope, rpcError, rpcIdOf, rpcResult, type JsonRpcRequest } from './jsonrpc.ts';
import { messageSendParamsSchema, taskIdParamsSchema, type A2aEvent } from './protocol.ts';
import { sseErrorResponse, sseResponse, sseSnapshotFrame } from './sse.ts';
import { createA2aOperations, type A2aOperations, type A2aOperationsDeps } from './operations.ts';
import { dispatchV1, V1_METHODS, V1_STREAMING } from './server-v1.ts';
import { wantsAgui, withAgui } from './agui.ts';
import { TERMINAL_STATES } from '../db/index.ts';

export const MAX_A2A_BODY_BYTES = 1024 * 1024;

/** v0.3 method names (and the PascalCase spellings some v0.3 clients send). */
const METHODS: Record<string, 'send' | 'stream' | 'get' | 'cancel' | 'resubscribe'> = {
  'message/send': 'send',
  SendMessage: 'send',
  'message/sendStreaming': 'stream',
  'message/stream': 'stream',
  SendStreamingMessage: 'stream',
  'tasks/get': 'get',
  GetTask: 'get',
  'tasks/cancel': 'cancel',
  CancelTask: 'cancel',
  'tasks/resubscribe': 'resubscribe',
  TaskSubscription: 'resubscribe',
};

const STREAMING = new Set<string>(['stream', 'resubscribe']);

export interface A2aServerDeps extends A2aOperationsDeps {
  flags: () => Promise<FeatureFlags>;
  verifyToken: (token: string) => Promise<AuthenticatedClientLike>;
  logger: Logger;
}

function params<T>(schema: z.ZodType<T>, value: unknown): T {
  return parseOrThrow(schema, value, 'Invalid params');
}

/**
 * `POST /api/a2a`: JSON-RPC 2.0 for A2A. 404 while SERVICE_A2A_HTTP_ENABLED is off (read per
 * request), 401 without a valid bearer JWT, then JSON-RPC errors in a 200 response: never a 5xx
 * for anything the caller sent.
 */
/**
 * The protocol a request speaks: its `A2A-Version` header; without one, v1.0 for the v1.0 method
 * names (a message in v0.3 shape, role "user", under such a name stays v0.3), else v0.3.
 */
function protocolOf(request: Request, rpc: JsonRpcRequest): '0.3' | '1.0' {
  // The spec allows the version as a request parameter instead of the header.
  const header = (request.headers.get('a2a-version') ?? new URL(request.url).searchParams.get('A2A-Version'))?.trim();
  if (header) {
    if (/^1\.0(\.\d+)?$/.test(header)) return '1.0';
    if (/^0\.3(\.\d+)?$/.test(header)) return '0.3';
    throw new DomainError('VERSION_NOT_SUPPORTED', `A2A-Version ${header.slice(0, 20)} is not supported: this agent speaks 1.0 and 0.3`);
  }
  if (!V1_METHODS.has(rpc.method)) return '0.3';
  const role = (rpc.params as { message?: { role?: unknown } } | null | undefined)?.message?.role;
  return role === 'user' || role === 'agent' ? '0.3' : '1.0';
}

/**
 * `POST /api/a2a` (and `/a2a/<vendor>/<slug>`, one agent's endpoint): JSON-RPC 2.0 for A2A v0.3
 * and v1.0. 404 while SERVICE_A2A_HTTP_ENABLED is off (read per request), 401 without a valid
 * bearer JWT, then JSON-RPC errors in a 200 response: never a 5xx for anything the caller sent.
 */
export function createA2aHandler(deps: A2aServerDeps) {
  const ops = createA2aOperations(deps);

  async function dispatch(ops: A2aOperations, request: Request, rpc: JsonRpcRequest, actor: AuthenticatedClientLike, agent: string | null): Promise<Response> {
    const kind = METHODS[rpc.method];
    if (!kind) throw new DomainError('METHOD_NOT_FOUND', `Method not found: ${rpc.method}`);
    const idempotencyKey = request.headers.get('idempotency-key')?.slice(0, 200) || null;
    const lastEventId = Number.parseInt(request.headers.get('last-event-id') ?? '', 10);
    // AG-UI rides along only when the operator enabled it and this client asked for it.
    const agui = wantsAgui(request) && (await deps.flags()).aguiExternalEnabled;
    const shape = (event: A2aEvent, seq: number) => (agui ? withAgui(event, seq) : event);

    switch (kind) {
      case 'send': {
        const p = params(messageSendParamsSchema, rpc.params);
        const done = await ops.sendAndWait(actor, p, idempotencyKey, agent, { returnImmediately: p.configuration?.blocking === false, signal: request.signal });
        return json(rpcResult(rpc.id, taskOf(done, { historyLength: p.configuration?.historyLength })));
      }
      case 'stream': {
        const p = params(messageSendParamsSchema, rpc.params);
        const { run, startSeq } = await ops.send(actor, p, idempotencyKey, agent);
        // A reconnect (same Idempotency-Key or messageId) with Last-Event-ID resumes after it.
        const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : startSeq;
        return sseResponse((signal) => ops.frames(rpc.id, run.id, from, signal, shape), request.signal);
      }
      case 'get': {
        const p = params(taskIdParamsSchema, rpc.params);
        return json(rpcResult(rpc.id, taskOf(await ops.visibleRun(actor, p.id, 'read'), { historyLength: p.historyLength })));
      }
      case 'cancel': {
        const p = params(taskIdParamsSchema, rpc.params);
        const run = await ops.visibleRun(actor, p.id, 'execute');
        return json(rpcResult(rpc.id, taskOf(await ops.cancel(run.id))));
      }
      case 'resubscribe': {
        const p = params(taskIdParamsSchema, rpc.params);
        const run = await ops.visibleRun(actor, p.id, 'read');
        const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : run.lastSeq;
        return sseResponse(async function* (signal) {
          // First the current Task (a snapshot: no id, so ids stay strictly increasing from
          // Last-Event-ID), then whatever happens after the client's last event.
          const task = taskOf(run);
          yield sseSnapshotFrame(rpc.id, agui ? withAgui(task, run.lastSeq) : task);
          if (!TERMINAL_STATES.includes(run.state) || from < run.lastSeq) yield* ops.frames(rpc.id, run.id, from, signal, shape);
        }, request.signal);
      }
    }
  }

  return async (request: Request, route: { agent?: string } = {}): Promise<Response> => {
    if (!(await deps.flags()).a2aHttpEnabled) return new Response('Not Found', { status: 404 });
    if (request.method !== 'POST') return json({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Use POST' } }, { status: 405, headers: { allow: 'POST' } });
    const token = bearerToken(request);
    let actor: AuthenticatedClientLike;
    try {
      if (!token) throw new DomainError('UNAUTHENTICATED', 'A bearer access token is required');
      actor = await deps.verifyToken(token);
    } catch (error) {
      const message = error instanceof DomainError && error.code === 'UNAUTHENTICATED' ? error.message : 'Invalid or expired access token';
      return json({ error: { code: 'UNAUTHENTICATED', message } }, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }
    const agent = route.agent ?? null;
    if (agent && !(await deps.card()).skills.some((skill) => skill.id === agent)) return json({ error: { code: 'NOT_FOUND', message: `No agent ${agent} on this host` } }, { status: 404 });
    let rpc: JsonRpcRequest | undefined;
    let streaming = false;
    try {
      const text = await readBodyLimited(request, MAX_A2A_BODY_BYTES);
      rpc = parseEnvelope(text);
      streaming = V1_STREAMING.has(rpc.method) || STREAMING.has(METHODS[rpc.method] ?? '');
      const version = protocolOf(request, rpc);
      return version === '1.0' ? await dispatchV1(ops, request, rpc, actor, agent) : await dispatch(ops, request, rpc, actor, agent);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return json(rpcError(rpc?.id ?? null, error), { status: 413 });
      const payload = rpcError(rpc?.id ?? rpcIdOf(error), error, deps.logger);
      // A client of a streaming method reads an event stream: its error comes as one frame of it.
      return streaming ? sseErrorResponse(payload) : json(payload);
    }
  };
}
