import { type z } from 'zod';
import type { AgentAccessActor } from '../../../auth/index.ts';
import { DomainError, parseOrThrow } from '../../../errors/index.ts';
import { assertJsonDepth, json } from '../../../http/index.ts';
import { isTerminal, type VisibleRunEvent } from '../../../runs/index.ts';
import { withAgui } from '../../agui.ts';
import { wantsToolDetails, withToolDetails } from '../../tool-details.ts';
import { rpcResult, type JsonRpcRequest } from '../../jsonrpc.ts';
import type { A2aOperations, SendParams } from '../../operations.ts';
import { sseResponse, sseSnapshotFrame } from '../../sse.ts';
import { configInputFrom03, configTo03, deleteConfig03Schema, getConfig03Schema, listConfigs03Schema, setConfig03Schema } from '../../push/index.ts';
import { eventTo03, messageFrom03, messageSendParamsSchema, taskIdParamsSchema, taskTo03, type MessageSendParams } from './protocol.ts';

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

/** The v0.3 push-notification config methods (answered -32003 when push is off). */
const PUSH_CONFIG_METHODS = new Set(['tasks/pushNotificationConfig/set', 'tasks/pushNotificationConfig/get', 'tasks/pushNotificationConfig/list', 'tasks/pushNotificationConfig/delete']);

/** Whether a v0.3 method streams its answer. */
export const isStreaming03 = (method: string) => METHODS[method] === 'stream' || METHODS[method] === 'resubscribe';

function params<T>(schema: z.ZodType<T>, value: unknown): T {
  assertJsonDepth(value, 'Invalid params');
  return parseOrThrow(schema, value, 'Invalid params');
}

const sendParamsFrom03 = (p: MessageSendParams): SendParams => ({
  message: messageFrom03(p.message),
  ...(p.metadata ? { metadata: p.metadata } : {}),
  ...(p.configuration?.pushNotificationConfig !== undefined ? { pushConfig: { input: configInputFrom03(p.configuration.pushNotificationConfig), protocol: '0.3' as const } } : {}),
});

/** The 0.3 push config methods: TaskPushNotificationConfig of 0.3 in and out, a list as an array, delete answers null. */
async function pushConfig03(ops: A2aOperations, method: string, input: unknown, actor: AgentAccessActor, agent: string | null): Promise<unknown> {
  ops.push.supported();
  switch (method) {
    case 'tasks/pushNotificationConfig/set': {
      const p = params(setConfig03Schema, input);
      return configTo03(await ops.push.set(actor, p.taskId, configInputFrom03(p.pushNotificationConfig), '0.3', agent));
    }
    case 'tasks/pushNotificationConfig/get': {
      const p = params(getConfig03Schema, input);
      return configTo03(await ops.push.get(actor, p.id, p.pushNotificationConfigId ?? p.id, agent));
    }
    case 'tasks/pushNotificationConfig/list': {
      const p = params(listConfigs03Schema, input);
      return (await ops.push.list(actor, p.id, agent)).map(configTo03);
    }
    default: {
      const p = params(deleteConfig03Schema, input);
      await ops.push.remove(actor, p.id, p.pushNotificationConfigId, agent);
      return null;
    }
  }
}

/**
 * A2A v0.3 on the JSON-RPC binding: the shared operations, read from and written in v0.3 shapes.
 * `agui`: the caller asked for the AG-UI multiplex (each event also as AG-UI events in its metadata).
 */
export async function dispatch03(ops: A2aOperations, request: Request, rpc: JsonRpcRequest, actor: AgentAccessActor, agent: string | null, agui: boolean): Promise<Response> {
  if (PUSH_CONFIG_METHODS.has(rpc.method)) return json(rpcResult(rpc.id, await pushConfig03(ops, rpc.method, rpc.params, actor, agent)));
  const kind = METHODS[rpc.method];
  if (!kind) throw new DomainError('METHOD_NOT_FOUND', `Method not found: ${rpc.method}`);
  const idempotencyKey = request.headers.get('idempotency-key')?.slice(0, 200) || null;
  const lastEventId = Number.parseInt(request.headers.get('last-event-id') ?? '', 10);
  const toolDetails = wantsToolDetails(request.headers.get('a2a-extensions') ?? request.headers.get('x-a2a-extensions'));
  const shapeFor = (run: { id: string; contextId: string }) => (event: VisibleRunEvent, seq: number) => {
    const wire = eventTo03(toolDetails ? withToolDetails(event) : event, run);
    return agui ? withAgui(wire, event, seq, run) : wire;
  };

  switch (kind) {
    case 'send': {
      const p = params(messageSendParamsSchema, rpc.params);
      const done = await ops.sendAndWait(actor, sendParamsFrom03(p), idempotencyKey, agent, { returnImmediately: p.configuration?.blocking === false, signal: request.signal });
      return json(rpcResult(rpc.id, taskTo03(done, { historyLength: p.configuration?.historyLength })));
    }
    case 'stream': {
      const p = params(messageSendParamsSchema, rpc.params);
      const { run, startSeq, stored } = await ops.send(actor, sendParamsFrom03(p), idempotencyKey, agent);
      // A reconnect (same Idempotency-Key or messageId) with Last-Event-ID resumes after it.
      const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : startSeq;
      return sseResponse((signal) => ops.frames(rpc.id, run, from, signal, shapeFor(run), stored), request.signal);
    }
    case 'get': {
      const p = params(taskIdParamsSchema, rpc.params);
      return json(rpcResult(rpc.id, taskTo03(await ops.visibleRun(actor, p.id, 'read', agent), { historyLength: p.historyLength })));
    }
    case 'cancel': {
      const p = params(taskIdParamsSchema, rpc.params);
      const run = await ops.visibleRun(actor, p.id, 'execute', agent);
      return json(rpcResult(rpc.id, taskTo03(await ops.cancel(run.id))));
    }
    case 'resubscribe': {
      const p = params(taskIdParamsSchema, rpc.params);
      const run = await ops.visibleRun(actor, p.id, 'read', agent);
      const from = Number.isFinite(lastEventId) && lastEventId >= 0 ? lastEventId : run.lastSeq;
      return sseResponse(async function* (signal) {
        // First the current Task (a snapshot: no id, so ids stay strictly increasing from
        // Last-Event-ID), then whatever happens after the client's last event.
        const task = taskTo03(run);
        yield sseSnapshotFrame(rpc.id, agui ? withAgui(task, { type: 'created', runId: run.id, contextId: run.contextId, agent: run.agent, input: run.input, status: run.status }, run.lastSeq, run) : task);
        if (!isTerminal(run.state) || from < run.lastSeq) yield* ops.frames(rpc.id, run, from, signal, shapeFor(run));
      }, request.signal);
    }
  }
}
