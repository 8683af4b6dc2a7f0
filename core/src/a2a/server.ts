import { type z } from 'zod';
import { assertAgentAccess, mayAccessRun, type AgentAccessActor as AuthenticatedClientLike } from '../auth/index.ts';
import type { FeatureFlags } from '../config/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { bearerToken, json, readBodyLimited } from '../http/index.ts';
import type { Logger } from '../log/index.ts';
import { taskOf, type EventLog, type RunExecutor, type RunStore, type RunView } from '../runs/index.ts';
import type { AgentCard } from './agent-card.ts';
import { parseEnvelope, rpcError, rpcIdOf, rpcResult, type JsonRpcRequest } from './jsonrpc.ts';
import { messageSendParamsSchema, resumeOf, taskIdParamsSchema, type MessageSendParams } from './protocol.ts';
import { sseErrorResponse, sseFrame, sseResponse, sseSnapshotFrame } from './sse.ts';
import { wantsAgui, withAgui } from './agui.ts';
import { TERMINAL_STATES } from '../db/index.ts';

export const MAX_A2A_BODY_BYTES = 1024 * 1024;
const SETTLED: readonly string[] = [...TERMINAL_STATES, 'input-required'];

/** Method names, with the A2A v0.3 and v1.0 spellings reference clients send. */
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

export interface A2aServerDeps {
  flags: () => FeatureFlags;
  verifyToken: (token: string) => Promise<AuthenticatedClientLike>;
  card: () => Promise<AgentCard>;
  runs: RunStore;
  eventLog: EventLog;
  executor: RunExecutor;
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
export function createA2aHandler(deps: A2aServerDeps) {
  async function targetAgent(sendParams: MessageSendParams): Promise<string> {
    const wanted = sendParams.message.metadata?.skillId ?? sendParams.metadata?.skillId;
    const skills = (await deps.card()).skills;
    if (typeof wanted === 'string') {
      if (!skills.some((s) => s.id === wanted)) throw new DomainError('VALIDATION_FAILED', `No skill "${wanted}" on this host`);
      return wanted;
    }
    if (skills.length === 1) return skills[0]!.id;
    throw new DomainError('VALIDATION_FAILED', 'Name the agent: set message.metadata.skillId to one of the AgentCard skill ids', { details: skills.map((s) => ({ path: 'message.metadata.skillId', reason: s.id })) });
  }

  async function visibleRun(actor: AuthenticatedClientLike, runId: string, permission: 'read' | 'execute'): Promise<RunView> {
    const run = await deps.runs.get(runId);
    // Someone else's task looks exactly like a missing one.
    if (!run || !mayAccessRun(actor, run, permission)) throw new DomainError('NOT_FOUND', 'Task not found');
    return run;
  }

  /** Starts a run, continues a paused one with a resume payload, or finds the retried one. */
  async function send(actor: AuthenticatedClientLike, sendParams: MessageSendParams, idempotencyKey: string | null): Promise<{ run: RunView; startSeq: number; execution?: Promise<RunView | null> }> {
    const { message } = sendParams;
    if (message.taskId) {
      const run = await visibleRun(actor, message.taskId, 'execute');
      const resume = resumeOf(message);
      if (!resume) {
        if (TERMINAL_STATES.includes(run.state)) throw new DomainError('UNSUPPORTED_OPERATION', `Task ${run.id} is ${run.state}; start a new task`);
        throw new DomainError('VALIDATION_FAILED', 'A message for an existing task must carry a resume payload: a data part { "resume": { "screenId", "values" } }');
      }
      // A retried resume (same messageId) replays instead of resuming twice.
      if (!(await deps.runs.claimMessage(actor, message.messageId, run.id))) return { run, startSeq: run.lastSeq };
      const startSeq = run.lastSeq;
      try {
        await deps.executor.resume(run.id, resume);
      } catch (error) {
        await deps.runs.releaseMessage(actor, message.messageId);
        throw error;
      }
      return { run: (await deps.runs.get(run.id))!, startSeq };
    }
    const agent = await targetAgent(sendParams);
    assertAgentAccess(actor, agent, 'execute');
    // Started right below in this process, so the run is stored already working.
    const { run, created } = await deps.runs.create(actor, { agent, message, idempotencyKey, working: true });
    // A retried request (same Idempotency-Key or messageId) gets the whole stream again unless
    // it says where it stopped with Last-Event-ID.
    if (!created) return { run, startSeq: 0 };
    const execution = deps.executor.start(run.id, run);
    return { run, startSeq: 0, execution };
  }

  /** message/send blocks until the task completes, fails or pauses, unless configuration.blocking is false. */
  async function settled(run: RunView, afterSeq: number, signal: AbortSignal): Promise<RunView> {
    for await (const stored of deps.eventLog.follow(run.id, afterSeq, signal)) void stored;
    return (await deps.runs.get(run.id))!;
  }

  async function dispatch(request: Request, rpc: JsonRpcRequest, actor: AuthenticatedClientLike): Promise<Response> {
    const kind = METHODS[rpc.method];
    if (!kind) throw new DomainError('METHOD_NOT_FOUND', `Method not found: ${rpc.method}`);
    const idempotencyKey = request.headers.get('idempotency-key')?.slice(0, 200) || null;
    const lastEventId = Number.parseInt(request.headers.get('last-event-id') ?? '', 10);
    // AG-UI rides along only when the operator enabled it and this client asked for it.
    const agui = deps.flags().aguiExternalEnabled && wantsAgui(request);

    switch (kind) {
      case 'send': {
        const p = params(messageSendParamsSchema, rpc.params);
        const { run, startSeq, execution } = await send(actor, p, idempotencyKey);
        if (p.configuration?.blocking === false) return json(rpcResult(rpc.id, taskOf(run)));
        // Executing here: wait for the executor itself rather than following the event log,
        // unless another worker holds the run (then the log tells when it settles).
        let done = execution ? await execution.then(async (finished) => finished ?? (await deps.runs.get(run.id))!) : null;
        if (!done || !SETTLED.includes(done.state)) done = await settled(run, startSeq, request.signal);
        return json(rpcResult(rpc.id, taskOf(done)));
      }
      case 'stream': {
        const p = params(messageSendParamsSchema, rpc.params);
        const { run, startSeq } = await send(actor, p, idempotencyKey);
        // A reconnect (same Idempotency-Key or messageId) with Last-Event-ID resumes after it.
        const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : startSeq;
        return sseResponse((signal) => frames(rpc, run.id, from, signal, agui), request.signal);
      }
      case 'get': {
        const p = params(taskIdParamsSchema, rpc.params);
        return json(rpcResult(rpc.id, taskOf(await visibleRun(actor, p.id, 'read'))));
      }
      case 'cancel': {
        const p = params(taskIdParamsSchema, rpc.params);
        const run = await visibleRun(actor, p.id, 'execute');
        return json(rpcResult(rpc.id, taskOf(await deps.executor.cancel(run.id))));
      }
      case 'resubscribe': {
        const p = params(taskIdParamsSchema, rpc.params);
        const run = await visibleRun(actor, p.id, 'read');
        const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : run.lastSeq;
        return sseResponse(async function* (signal) {
          // First the current Task (a snapshot: no id, so ids stay strictly increasing from
          // Last-Event-ID), then whatever happens after the client's last event.
          const task = taskOf(run);
          yield sseSnapshotFrame(rpc.id, agui ? withAgui(task, run.lastSeq) : task);
          if (!TERMINAL_STATES.includes(run.state) || from < run.lastSeq) yield* frames(rpc, run.id, from, signal, agui);
        }, request.signal);
      }
    }
  }

  async function* frames(rpc: JsonRpcRequest, runId: string, afterSeq: number, signal: AbortSignal, agui: boolean): AsyncGenerator<string> {
    for await (const stored of deps.eventLog.follow(runId, afterSeq, signal)) {
      yield sseFrame(rpc.id, agui ? { seq: stored.seq, event: withAgui(stored.event, stored.seq) } : stored);
    }
  }

  return async (request: Request): Promise<Response> => {
    if (!deps.flags().a2aHttpEnabled) return new Response('Not Found', { status: 404 });
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
    let rpc: JsonRpcRequest | undefined;
    try {
      const text = await readBodyLimited(request, MAX_A2A_BODY_BYTES);
      rpc = parseEnvelope(text);
      return await dispatch(request, rpc, actor);
    } catch (error) {
      if (error instanceof DomainError && error.code === 'PAYLOAD_TOO_LARGE') return json(rpcError(rpc?.id ?? null, error), { status: 413 });
      const payload = rpcError(rpc?.id ?? rpcIdOf(error), error, deps.logger);
      // A client of a streaming method reads an event stream: its error comes as one frame of it.
      return rpc && STREAMING.has(METHODS[rpc.method]!) ? sseErrorResponse(payload) : json(payload);
    }
  };
}
