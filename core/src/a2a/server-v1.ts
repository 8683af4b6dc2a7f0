import { z } from 'zod';
import { withToolDetails, wantsToolDetails } from './tool-details.ts';
import { ACCESS_DENIED, mayAccessAgent, mayAccessRun, mayActorDo, type AgentAccessActor } from '../auth/index.ts';
import { DomainError, parseOrThrow } from '../errors/index.ts';
import { assertJsonDepth, json } from '../http/index.ts';
import { isTerminal, type RunView, type StoredEvent } from '../runs/index.ts';
import { rpcResult, type JsonRpcRequest } from './jsonrpc.ts';
import { messageFromV1, sendMessageV1Schema, stateFromV1, streamResponseV1, taskIdV1Schema, taskToV1 } from './protocol-v1.ts';
import { sseFrame, sseResponse, sseSnapshotFrame } from './sse.ts';
import type { A2aOperations, SendParams } from './operations.ts';
import { configInputFromSend, configInputFromV1, configRefV1Schema, configToV1, createConfigV1Schema, listConfigsV1Schema } from './push/index.ts';

/** The v1.0 method names of the JSON-RPC binding. */
export const V1_METHODS = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'GetExtendedAgentCard',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
]);
export const V1_STREAMING = new Set(['SendStreamingMessage', 'SubscribeToTask']);

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** RFC 3339 (what ProtoJSON writes for a Timestamp) or milliseconds since the epoch. */
const timestampSchema = z.union([
  z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'an RFC 3339 timestamp').transform((value, context) => {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) context.addIssue({ code: 'custom', message: 'an RFC 3339 timestamp' });
    return ms;
  }),
  z.number().int().min(0),
]);

export const listTasksSchema = z.object({
  tenant: z.string().optional(),
  contextId: z.string().max(200).optional(),
  status: z.string().max(100).optional(),
  pageSize: z.number().int().min(1, `pageSize must be between 1 and ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `pageSize must be between 1 and ${MAX_PAGE_SIZE}`).optional(),
  pageToken: z.string().max(1000).optional(),
  historyLength: z.number().int().min(0, 'historyLength must not be negative').optional(),
  statusTimestampAfter: timestampSchema.optional(),
  includeArtifacts: z.boolean().optional(),
});

/** Some clients send the proto field names (`task_id`, `history_length`): read them as the JSON names. */
function camelKeys(value: unknown, depth = 0): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || depth > 1) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), key === 'configuration' ? camelKeys(inner, depth + 1) : inner]));
}

export function params<T>(schema: z.ZodType<T>, value: unknown): T {
  assertJsonDepth(value, 'Invalid params');
  return parseOrThrow(schema, camelKeys(value ?? {}), 'Invalid params');
}

const task = (run: RunView, options: { historyLength?: number; artifacts?: boolean } = {}) => taskToV1(run, options);

/** Page tokens are opaque to clients: the base64url of the service's own token (it names the caller and the last task shown). */
export const encodeToken = (rowId: string) => Buffer.from(rowId, 'utf8').toString('base64url');
export function decodeToken(actor: AgentAccessActor, token: string, owns: (actor: AgentAccessActor, rowId: string) => boolean): string {
  const rowId = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  if (!owns(actor, rowId)) throw new DomainError('VALIDATION_FAILED', 'Invalid params: pageToken is not one this service issued', { details: [{ path: 'pageToken', reason: 'unknown page token' }] });
  return rowId;
}

/**
 * A2A v1.0 on the JSON-RPC binding: the same operations as v0.3, read from and written in v1.0
 * shapes (protocol-v1.ts). `agent` is set on a per-agent endpoint (`/a2a/<vendor>/<slug>`).
 */
/** ListTasks (both bindings): the caller's tasks, on one agent's endpoint only that agent's, a page at a time. */
export async function listTasksV1(ops: A2aOperations, actor: AgentAccessActor, input: unknown, agent: string | null) {
  if (!mayActorDo(actor, (grants) => grants.permissions.includes('read'))) throw new DomainError('FORBIDDEN', 'Listing tasks needs the read permission');
  const p = params(listTasksSchema, input);
  const pageSize = p.pageSize ?? DEFAULT_PAGE_SIZE;
  const after = p.pageToken ? decodeToken(actor, p.pageToken, ops.ownsListToken) : null;
  const state = p.status !== undefined && p.status !== '' && p.status !== 'TASK_STATE_UNSPECIFIED' ? stateFromV1(p.status) : undefined;
  const whole = p.historyLength !== 0 || p.includeArtifacts === true;
  const page = await ops.listOwned(actor, { pageSize, after, whole, ...(agent ? { agent } : {}), ...(p.contextId ? { contextId: p.contextId } : {}), ...(state ? { state } : {}), ...(p.statusTimestampAfter !== undefined ? { updatedAfter: p.statusTimestampAfter } : {}) });
  // Tasks of agents this client may no longer read (its grants narrowed since) are left out.
  const visible = page.items.filter((run) => mayAccessRun(actor, run, 'read'));
  return {
    tasks: visible.map((run) => taskToV1(run, { historyLength: p.historyLength, artifacts: p.includeArtifacts === true })),
    nextPageToken: page.next ? encodeToken(page.next) : '',
    // The size of this page (what the TCK and the SDKs read), at most the requested one.
    pageSize: visible.length,
    totalSize: page.total,
  };
}

/** The authenticated extended card (both bindings): the agents this client may list, as the public card would show them. */
export async function extendedCardV1(ops: A2aOperations, actor: AgentAccessActor, agent: string | null) {
  if (!mayActorDo(actor, (grants) => grants.permissions.includes('list'))) throw new DomainError('FORBIDDEN', ACCESS_DENIED);
  const card = await ops.cardV1(agent);
  const skills = Array.isArray(card.skills) ? (card.skills as { id: string }[]).filter((skill) => mayAccessAgent(actor, skill.id, 'list')) : [];
  return { ...card, skills };
}

/** A SendMessageRequest (ProtoJSON) as the run model's send (every binding): a push config set with it, `returnImmediately` (or a draft's `blocking: false`) read. */
export function sendInputV1(body: unknown): { internal: SendParams; returnImmediately: boolean; historyLength?: number } {
  const p = params(sendMessageV1Schema, body);
  const configuration = p.configuration ?? {};
  const push = configuration.taskPushNotificationConfig ?? configuration.pushNotificationConfig;
  return {
    internal: { message: messageFromV1(p.message), ...(p.metadata ? { metadata: p.metadata } : {}), ...(push !== undefined ? { pushConfig: { input: configInputFromSend(push), protocol: '1.0' as const } } : {}) },
    returnImmediately: configuration.returnImmediately === true || configuration.blocking === false,
    ...(configuration.historyLength !== undefined ? { historyLength: configuration.historyLength } : {}),
  };
}

/** A run's events after `afterSeq` as v1.0 StreamResponses, each with its sequence number (`known`: as for `ops.events`). */
async function* streamResponsesV1(ops: A2aOperations, run: { id: string; contextId: string }, afterSeq: number, signal: AbortSignal, known: StoredEvent[] | undefined, toolDetails: boolean): AsyncGenerator<{ seq: number; response: Record<string, unknown> }> {
  for await (const { seq, event } of ops.events(run.id, afterSeq, signal, known)) yield { seq, response: streamResponseV1(toolDetails ? withToolDetails(event) : event, run) };
}

/**
 * SendStreamingMessage (every binding): starts or continues the task, then its events from
 * where this caller's stream starts, or after `resumeFrom` (a retry that names the last event it saw).
 */
export async function sendStreamingV1(ops: A2aOperations, actor: AgentAccessActor, body: unknown, options: { idempotencyKey: string | null; agent: string | null; resumeFrom: number | null; toolDetails?: boolean }) {
  const { internal } = sendInputV1(body);
  const { run, startSeq, stored } = await ops.send(actor, internal, options.idempotencyKey, options.agent);
  return { run, responses: (signal: AbortSignal) => streamResponsesV1(ops, run, options.resumeFrom ?? startSeq, signal, stored, options.toolDetails === true) };
}

/**
 * SubscribeToTask (every binding): the current Task first (not an event of the log, so it has no
 * sequence number), then what follows: the live events, or after `resumeFrom` those since then.
 * A finished task has nothing to follow unless the caller resumes.
 */
export async function subscribeV1(ops: A2aOperations, actor: AgentAccessActor, id: string, options: { agent: string | null; resumeFrom: number | null; toolDetails?: boolean }) {
  const run = await ops.visibleRun(actor, id, 'read', options.agent);
  if (isTerminal(run.state) && options.resumeFrom === null) {
    throw new DomainError('UNSUPPORTED_OPERATION', `Task ${run.id} is ${run.state}: a finished task has nothing to subscribe to`);
  }
  const from = options.resumeFrom ?? run.lastSeq;
  return {
    run,
    snapshot: { task: task(run) },
    responses: async function* (signal: AbortSignal) {
      if (!isTerminal(run.state) || from < run.lastSeq) yield* streamResponsesV1(ops, run, from, signal, undefined, options.toolDetails === true);
    },
  };
}

/** The four push notification config methods of 1.0 (every binding): TaskPushNotificationConfig in and out, Delete answers `{}`. */
export async function pushConfigV1(ops: A2aOperations, method: string, input: unknown, actor: AgentAccessActor, agent: string | null): Promise<unknown> {
  ops.push.supported();
  switch (method) {
    case 'CreateTaskPushNotificationConfig': {
      const p = params(createConfigV1Schema, input);
      return configToV1(await ops.push.set(actor, p.taskId, configInputFromV1(p), '1.0', agent));
    }
    case 'GetTaskPushNotificationConfig': {
      const p = params(configRefV1Schema, input);
      return configToV1(await ops.push.get(actor, p.taskId, p.id, agent));
    }
    case 'ListTaskPushNotificationConfigs': {
      const p = params(listConfigsV1Schema, input);
      // A task has at most MAX_PUSH_CONFIGS_PER_TASK configs: one page holds them all.
      return { configs: (await ops.push.list(actor, p.taskId, agent)).map(configToV1), nextPageToken: '' };
    }
    default: {
      const p = params(configRefV1Schema, input);
      await ops.push.remove(actor, p.taskId, p.id, agent);
      return {};
    }
  }
}

export async function dispatchV1(ops: A2aOperations, request: Request, rpc: JsonRpcRequest, actor: AgentAccessActor, agent: string | null): Promise<Response> {
  const idempotencyKey = request.headers.get('idempotency-key')?.slice(0, 200) || null;
  const lastEventId = Number.parseInt(request.headers.get('last-event-id') ?? '', 10);

  const resumeFrom = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : null;
  const toolDetails = wantsToolDetails(request.headers.get('a2a-extensions'));

  switch (rpc.method) {
    case 'SendMessage': {
      const { internal, returnImmediately, historyLength } = sendInputV1(rpc.params);
      const run = await ops.sendAndWait(actor, internal, idempotencyKey, agent, { returnImmediately, signal: request.signal });
      return json(rpcResult(rpc.id, { task: task(run, { historyLength }) }));
    }
    case 'SendStreamingMessage': {
      const { responses } = await sendStreamingV1(ops, actor, rpc.params, { idempotencyKey, agent, resumeFrom, toolDetails });
      return sseResponse(async function* (signal) {
        for await (const { seq, response } of responses(signal)) yield sseFrame(rpc.id, seq, response);
      }, request.signal);
    }
    case 'GetTask': {
      const p = params(taskIdV1Schema, rpc.params);
      return json(rpcResult(rpc.id, task(await ops.visibleRun(actor, p.id, 'read', agent), { historyLength: p.historyLength })));
    }
    case 'CancelTask': {
      const p = params(taskIdV1Schema, rpc.params);
      const run = await ops.visibleRun(actor, p.id, 'execute', agent);
      return json(rpcResult(rpc.id, task(await ops.cancel(run.id))));
    }
    case 'SubscribeToTask': {
      const p = params(taskIdV1Schema, rpc.params);
      const { snapshot, responses } = await subscribeV1(ops, actor, p.id, { agent, resumeFrom, toolDetails });
      return sseResponse(async function* (signal) {
        // The current Task first (no id: it is not an event of the log), then what follows Last-Event-ID.
        yield sseSnapshotFrame(rpc.id, snapshot);
        for await (const { seq, response } of responses(signal)) yield sseFrame(rpc.id, seq, response);
      }, request.signal);
    }
    case 'ListTasks':
      return json(rpcResult(rpc.id, await listTasksV1(ops, actor, rpc.params, agent)));
    case 'GetExtendedAgentCard':
      return json(rpcResult(rpc.id, await extendedCardV1(ops, actor, agent)));
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
    case 'ListTaskPushNotificationConfigs':
    case 'DeleteTaskPushNotificationConfig':
      return json(rpcResult(rpc.id, await pushConfigV1(ops, rpc.method, rpc.params, actor, agent)));
    default:
      throw new DomainError('METHOD_NOT_FOUND', `Method not found: ${rpc.method}`);
  }
}
