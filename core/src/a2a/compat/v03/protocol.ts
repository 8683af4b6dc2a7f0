import { z } from 'zod';
import type { Interrupt, Metadata, RunArtifact, RunEvent, RunMessage, RunPart, RunState, RunStatus, RunView, VisibleRunEvent } from '../../../runs/index.ts';
import { interruptPayload } from '../../hitl-answer.ts';
import { isObject, pauseOf, withMetadata, withoutInterrupt } from '../../wire.ts';

/**
 * A2A protocol v0.3 on the JSON-RPC binding, kept for clients and peers that still speak it: its
 * wire shapes and their translation to and from the run model. Nothing outside this folder sees
 * them; the service's primary protocol is v1.0 (protocol-v1.ts).
 */
export const A2A_PROTOCOL_VERSION = '0.3.0';

const metadataSchema = z.record(z.string(), z.unknown());

export const partSchema = z.union([
  z.object({ kind: z.literal('text'), text: z.string(), metadata: metadataSchema.optional() }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata: metadataSchema.optional() }),
  z.object({
    kind: z.literal('file'),
    file: z.object({ name: z.string().optional(), mimeType: z.string().optional(), bytes: z.string().optional(), uri: z.string().optional() }),
    metadata: metadataSchema.optional(),
  }),
]);

export const messageSchema = z.object({
  kind: z.literal('message').default('message'),
  messageId: z.string().min(1).max(200),
  role: z.enum(['user', 'agent']),
  parts: z.array(partSchema).min(1).max(100),
  taskId: z.string().max(200).optional(),
  contextId: z.string().max(200).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
  metadata: metadataSchema.optional(),
});

export const messageSendParamsSchema = z.object({
  message: messageSchema,
  configuration: z
    .object({
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0).optional(),
      acceptedOutputModes: z.array(z.string()).optional(),
      pushNotificationConfig: z.unknown().optional(),
    })
    .passthrough()
    .optional(),
  metadata: metadataSchema.optional(),
});

export const taskIdParamsSchema = z.object({ id: z.string().min(1).max(200), historyLength: z.number().int().min(0).optional(), metadata: metadataSchema.optional() });

export type Part = z.infer<typeof partSchema>;
export type Message = z.infer<typeof messageSchema>;
export type MessageSendParams = z.infer<typeof messageSendParamsSchema>;

export interface TaskStatus {
  state: RunState;
  message?: Message;
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Metadata;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: Message[];
  artifacts?: Artifact[];
  metadata?: Metadata;
}

export interface TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Metadata;
}

export interface TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

export type A2aEvent = Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent | Message;


export function partFrom03(part: Part): RunPart {
  switch (part.kind) {
    case 'text':
      return { type: 'text', text: part.text, ...withMetadata(part.metadata) };
    case 'data':
      return { type: 'data', data: part.data, ...withMetadata(part.metadata) };
    case 'file':
      return {
        type: 'file',
        ...(part.file.name !== undefined ? { name: part.file.name } : {}),
        ...(part.file.mimeType !== undefined ? { mediaType: part.file.mimeType } : {}),
        ...(part.file.bytes !== undefined ? { bytes: part.file.bytes } : {}),
        ...(part.file.uri !== undefined ? { url: part.file.uri } : {}),
        ...withMetadata(part.metadata),
      };
  }
}

export function partTo03(part: RunPart): Part {
  switch (part.type) {
    case 'text':
      return { kind: 'text', text: part.text, ...withMetadata(part.metadata) };
    case 'data':
      // v0.3 data parts hold an object; any other JSON value is wrapped.
      return { kind: 'data', data: isObject(part.data) ? part.data : { value: part.data }, ...withMetadata(part.metadata) };
    case 'file':
      return {
        kind: 'file',
        file: { ...(part.name !== undefined ? { name: part.name } : {}), ...(part.mediaType !== undefined ? { mimeType: part.mediaType } : {}), ...(part.bytes !== undefined ? { bytes: part.bytes } : {}), ...(part.url !== undefined ? { uri: part.url } : {}) },
        ...withMetadata(part.metadata),
      };
  }
}

export function messageFrom03(message: Message): RunMessage {
  return {
    id: message.messageId,
    role: message.role,
    parts: message.parts.map(partFrom03),
    ...(message.taskId ? { runId: message.taskId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceTaskIds ? { referenceRunIds: message.referenceTaskIds } : {}),
    ...withMetadata(message.metadata),
  };
}

export function messageTo03(message: RunMessage): Message {
  return {
    kind: 'message',
    messageId: message.id,
    role: message.role,
    parts: message.parts.map(partTo03),
    ...(message.runId ? { taskId: message.runId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.referenceRunIds?.length ? { referenceTaskIds: message.referenceRunIds } : {}),
    ...withMetadata(message.metadata),
  };
}

/** A status as v0.3 shows it; a pause's message also carries the INTERRUPT as a data part. */
function statusTo03(status: RunStatus, runId: string, interrupt?: Interrupt | null): TaskStatus {
  const message = status.message ? messageTo03(status.message) : undefined;
  if (message && interrupt) message.parts = [...message.parts, { kind: 'data', data: { interrupt: interruptPayload(runId, interrupt) } }];
  return { state: status.state, timestamp: status.timestamp, ...(message ? { message } : {}) };
}

function artifactTo03(artifact: RunArtifact): Artifact {
  return { artifactId: artifact.id, ...(artifact.name ? { name: artifact.name } : {}), ...(artifact.description ? { description: artifact.description } : {}), parts: artifact.parts.map(partTo03), ...withMetadata(artifact.metadata) };
}

/**
 * The v0.3 Task for a run, as `tasks/get` and the first frame of `tasks/resubscribe` return it:
 * the history holds every message of the task (the input, the agent's messages, the caller's
 * answers), the newest `historyLength` of them when that is given (0: none).
 */
export function taskTo03(run: RunView, options: { historyLength?: number; artifacts?: boolean } = {}): Task {
  const history = [run.input, ...run.history].map(messageTo03);
  const length = options.historyLength;
  return {
    kind: 'task',
    id: run.id,
    contextId: run.contextId,
    status: statusTo03(run.status, run.id, run.interrupt),
    history: length === undefined ? history : length === 0 ? [] : history.slice(-length),
    artifacts: options.artifacts === false ? [] : run.artifacts.map(artifactTo03),
    metadata: { agent: run.agent, ...(run.usage ? { usage: run.usage } : {}) },
  };
}

/** A stored event as its v0.3 stream event. */
export function eventTo03(event: VisibleRunEvent, run: { id: string; contextId: string }): A2aEvent {
  switch (event.type) {
    case 'created':
      return { kind: 'task', id: run.id, contextId: run.contextId, status: statusTo03(event.status, run.id), history: [messageTo03(event.input)], artifacts: [], metadata: { agent: event.agent } };
    case 'status': {
      const metadata = { ...(event.metadata ?? {}), ...(event.interrupt ? { interrupt: interruptPayload(run.id, event.interrupt) } : {}) };
      return { kind: 'status-update', taskId: run.id, contextId: run.contextId, status: statusTo03(event.status, run.id, event.interrupt), final: event.final, ...(Object.keys(metadata).length ? { metadata } : {}) };
    }
    case 'artifact':
      return { kind: 'artifact-update', taskId: run.id, contextId: run.contextId, artifact: artifactTo03(event.artifact), ...(event.append !== undefined ? { append: event.append } : {}), ...(event.lastChunk !== undefined ? { lastChunk: event.lastChunk } : {}), ...withMetadata(event.metadata) };
    case 'message':
      return { ...messageTo03(event.message), taskId: run.id, contextId: run.contextId };
  }
}

// Reading a v0.3 peer's answers (the outbound client): lenient, into the run model.

function wireParts(parts: unknown): RunPart[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) => {
    const parsed = partSchema.safeParse(part);
    return parsed.success ? [partFrom03(parsed.data)] : [];
  });
}

function wireMessage(message: unknown): RunMessage | undefined {
  if (!isObject(message)) return undefined;
  return {
    id: String(message.messageId ?? ''),
    role: message.role === 'agent' ? 'agent' : 'user',
    parts: wireParts(message.parts),
    ...(typeof message.taskId === 'string' ? { runId: message.taskId } : {}),
    ...(typeof message.contextId === 'string' ? { contextId: message.contextId } : {}),
    ...(isObject(message.metadata) ? { metadata: message.metadata } : {}),
  };
}

/** A peer's status: its INTERRUPT (if any) is read out of the message's data part into the pause it describes. */
export function wireStatus(status: unknown, metadata: unknown): { status: RunStatus; interrupt?: Interrupt } {
  const value = isObject(status) ? status : {};
  const state = (typeof value.state === 'string' ? value.state : 'unknown') as RunState;
  const { message, interrupt } = pauseOf(wireMessage(value.message), metadata, state);
  return { status: { state, timestamp: typeof value.timestamp === 'string' ? value.timestamp : new Date().toISOString(), ...(message ? { message } : {}) }, ...(interrupt ? { interrupt } : {}) };
}

function wireArtifact(artifact: unknown): RunArtifact {
  const value = isObject(artifact) ? artifact : {};
  return { id: String(value.artifactId ?? ''), ...(value.name ? { name: String(value.name) } : {}), parts: wireParts(value.parts), ...(isObject(value.metadata) ? { metadata: value.metadata } : {}) };
}

/** A v0.3 peer's stream event as a run event; the Task snapshot as `created` (its id is the peer's task id). */
export function eventFrom03(wire: unknown): RunEvent | null {
  if (!isObject(wire)) return null;
  switch (wire.kind) {
    case 'task': {
      const { status } = wireStatus(wire.status, wire.metadata);
      const history = Array.isArray(wire.history) ? wire.history.flatMap((m) => wireMessage(m) ?? []) : [];
      return { type: 'created', runId: String(wire.id ?? ''), contextId: String(wire.contextId ?? ''), agent: String((wire.metadata as Metadata | undefined)?.agent ?? ''), input: history[0] ?? { id: '', role: 'user', parts: [] }, status };
    }
    case 'status-update': {
      const { status, interrupt } = wireStatus(wire.status, wire.metadata);
      const metadata = withoutInterrupt(wire.metadata);
      return { type: 'status', status, final: Boolean(wire.final), ...(interrupt ? { interrupt } : {}), ...withMetadata(metadata) };
    }
    case 'artifact-update':
      return { type: 'artifact', artifact: wireArtifact(wire.artifact), ...(wire.append !== undefined ? { append: Boolean(wire.append) } : {}), ...(wire.lastChunk !== undefined ? { lastChunk: Boolean(wire.lastChunk) } : {}), ...(isObject(wire.metadata) ? { metadata: wire.metadata } : {}) };
    case 'message': {
      const message = wireMessage(wire);
      return message ? { type: 'message', message } : null;
    }
    default:
      return null;
  }
}

/** A v0.3 peer's reply to `message/send`: the task (status, artifacts) or a message. */
export function replyFrom03(wire: unknown): { kind: 'task'; id: string; state: RunState; artifacts: RunArtifact[]; status: RunStatus; metadata?: Record<string, unknown> } | { kind: 'message'; message: RunMessage } | null {
  if (!isObject(wire)) return null;
  if (wire.kind === 'message') {
    const message = wireMessage(wire);
    return message ? { kind: 'message', message } : null;
  }
  if (wire.kind !== 'task') return null;
  const { status } = wireStatus(wire.status, wire.metadata);
  return { kind: 'task', id: String(wire.id ?? ''), state: status.state, status, artifacts: Array.isArray(wire.artifacts) ? wire.artifacts.map(wireArtifact) : [], ...(isObject(wire.metadata) ? { metadata: wire.metadata } : {}) };
}
